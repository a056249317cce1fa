import { Type } from '@sinclair/typebox';
import { codeLabel } from './tool-label.js';
import { defineTool, ToolError, type AgentTool } from './agent-tool.js';
import { BLOCKED_COMMANDS, findBlockedCommand } from './command-blocklist.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TOOL_TIMEOUT_MS, formatDuration } from './output-limit.js';
import type { CommandRunner } from './command-runner.js';
import { describeProcessResult } from './run-process.js';
import { buildToolEnvironment, type HostEnvironment } from './tool-environment.js';

export interface BashToolOptions {
  /** The sandbox (`sandboxedRunner`), or `unconfinedRunner` when the operator turned it off. */
  runner: CommandRunner;
  timeoutMs?: number;
  maxOutputBytes?: number;
  blockedCommands?: readonly string[];
  /** Where the allow-listed variables (PATH, HOME, …) are read from; nothing else passes. */
  hostEnv?: HostEnvironment;
  /** Only describes the tool to the model; the runner's policy decides. */
  network?: boolean;
}

/** Off unless enabled in config; the caller decides whether to register it. */
export function createBashTool(options: BashToolOptions): AgentTool {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const blocked = options.blockedCommands ?? BLOCKED_COMMANDS;
  const env = buildToolEnvironment(options.hostEnv ?? process.env);

  return defineTool({
    name: 'bash',
    description:
      'Run a bash command in your workspace directory and return its combined stdout and stderr. ' +
      `Times out after ${formatDuration(timeoutMs)}. Destructive commands (rm, sudo, dd, …) are refused.` +
      (options.runner.sandboxed
        ? ' It runs in a sandbox: only the workspace is writable and kept, /tmp is private and emptied after each command' +
          `${options.network ? '' : ', there is no network'}, and background processes end with the command.`
        : ''),
    category: 'write',
    privileged: true,
    label: ({ command }) => codeLabel('Running', command),
    parameters: Type.Object({ command: Type.String({ description: 'The bash command line', minLength: 1 }) }),
    async execute(args, context) {
      const refused = findBlockedCommand(args.command, blocked);
      if (refused !== undefined) throw new ToolError(`Command refused: '${refused}' is blocked as dangerous. Find a safer way or ask the user.`);
      const result = await options.runner.run({
        command: 'bash',
        args: ['-c', args.command],
        cwd: context.workspace,
        env,
        timeoutMs,
        maxOutputBytes,
        signal: context.signal,
      });
      const { ok, text } = describeProcessResult(result, timeoutMs);
      if (!ok) throw new ToolError(text);
      return text;
    },
  });
}
