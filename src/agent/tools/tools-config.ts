import { Type, type Static } from '@sinclair/typebox';
import { BotError } from '../../core/errors.js';
import type { AgentTool } from './agent-tool.js';
import { createBashTool } from './bash-tool.js';
import { createSendFileTool } from './send-file-tool.js';
import { CliToolDeclarationSchema, parseCliToolDeclaration, type CliToolDeclaration } from './cli-tool-declaration.js';
import { createCliTool } from './cli-tool.js';
import { sandboxedRunner, unconfinedRunner, type CommandRunner } from './command-runner.js';
import { createFileTools } from './file-tools.js';
import { DEFAULT_DENIED_PATHS, expandHome } from './path-guard.js';
import { detectSandbox, SANDBOX_INSTALL_HINT } from './sandbox-host.js';
import { isSandboxOn, SandboxLimitsSchema, sandboxLimits, SandboxSwitchSchema, type SandboxLimits, type SandboxSwitch } from './sandbox-policy.js';
import type { HostEnvironment } from './tool-environment.js';
import { ToolRegistry, type ToolPolicy } from './tool-registry.js';

/** The `tools` section of the config file, for the config schema to embed. */
export const ToolsConfigSchema = Type.Object(
  {
    bash: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean({ default: false }),
          timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
          max_output_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
          /** Default on: every command runs in the bubblewrap sandbox; `off` is logged as a warning at every start. */
          sandbox: Type.Optional(SandboxSwitchSchema),
          /** In the sandbox: keep the host's network (default false: loopback only). */
          network: Type.Optional(Type.Boolean()),
          /** In the sandbox: host paths commands may read. */
          read_only_paths: Type.Optional(Type.Array(Type.String({ pattern: '^(/|~/)' }))),
        },
        { additionalProperties: false },
      ),
    ),
    allowed_paths: Type.Optional(Type.Array(Type.String())),
    denied_paths: Type.Optional(Type.Array(Type.String())),
    cli: Type.Optional(Type.Array(CliToolDeclarationSchema)),
    /** Limits of every sandboxed command of this agent (bash and CLI tools). */
    sandbox_limits: Type.Optional(SandboxLimitsSchema),
    /** `true`, or the names of the admin tools this agent may run without approval. */
    allow_admin_tools: Type.Optional(Type.Union([Type.Boolean(), Type.Array(Type.String())])),
  },
  { additionalProperties: false },
);

export type ToolsConfig = Static<typeof ToolsConfigSchema>;

/** A tool that runs commands, with the config setting that decides its sandbox. */
export interface CommandToolSetting {
  tool: string;
  /** `tools.bash.sandbox` or `tools.cli[<name>].sandbox` */
  setting: string;
  sandboxed: boolean;
}

/** bash (when enabled) and every declared CLI tool, with whether each is sandboxed. */
export function commandToolSettings(config: ToolsConfig = {}): CommandToolSetting[] {
  const settings: CommandToolSetting[] = [];
  if (config.bash?.enabled) settings.push({ tool: 'bash', setting: 'tools.bash.sandbox', sandboxed: isSandboxOn(config.bash.sandbox) });
  for (const declaration of config.cli ?? []) {
    settings.push({ tool: declaration.name, setting: `tools.cli[${declaration.name}].sandbox`, sandboxed: isSandboxOn(declaration.sandbox) });
  }
  return settings;
}

interface RunnerRequest {
  setting: string;
  sandbox: SandboxSwitch | undefined;
  network: boolean | undefined;
  readOnlyPaths: string[] | undefined;
}

function runnerFactory(limits: SandboxLimits, hostEnv: HostEnvironment): (request: RunnerRequest) => CommandRunner {
  return ({ setting, sandbox, network, readOnlyPaths }) => {
    if (!isSandboxOn(sandbox)) return unconfinedRunner;
    const availability = detectSandbox(hostEnv);
    if (!availability.available) {
      throw new BotError(
        'config',
        `${setting} is on but the sandbox cannot run: ${availability.reason}. Fix: ${SANDBOX_INSTALL_HINT}, ` +
          `or set ${setting}: off to run commands unconfined (not recommended)`,
      );
    }
    return sandboxedRunner(availability.host, { network: network ?? false, readOnlyPaths: (readOnlyPaths ?? []).map(expandHome), limits });
  };
}

/**
 * The tools of one agent: the file tools, `bash` only when enabled, the declared CLI tools,
 * with the admin policy applied. With no config: the three file tools. A command tool whose
 * sandbox is on while bubblewrap cannot run here is a configuration error.
 */
export function defaultTools(config: ToolsConfig = {}, hostEnv: HostEnvironment = process.env): AgentTool[] {
  const fileAccess = { allowedPaths: config.allowed_paths ?? [], deniedPaths: [...DEFAULT_DENIED_PATHS, ...(config.denied_paths ?? [])] };
  const registry = new ToolRegistry([...createFileTools(fileAccess), createSendFileTool(fileAccess)]);
  const runnerFor = runnerFactory(sandboxLimits(config.sandbox_limits), hostEnv);
  if (config.bash?.enabled) {
    const { bash } = config;
    registry.register(
      createBashTool({
        hostEnv,
        runner: runnerFor({ setting: 'tools.bash.sandbox', sandbox: bash.sandbox, network: bash.network, readOnlyPaths: bash.read_only_paths }),
        network: bash.network ?? false,
        ...(bash.timeout_seconds === undefined ? {} : { timeoutMs: bash.timeout_seconds * 1000 }),
        ...(bash.max_output_bytes === undefined ? {} : { maxOutputBytes: bash.max_output_bytes }),
      }),
    );
  }
  for (const entry of config.cli ?? []) {
    const declaration: CliToolDeclaration = parseCliToolDeclaration(entry);
    const runner = runnerFor({
      setting: `tools.cli[${declaration.name}].sandbox`,
      sandbox: declaration.sandbox,
      network: declaration.network,
      readOnlyPaths: declaration.read_only_paths,
    });
    registry.register(createCliTool(declaration, hostEnv, { runner }));
  }
  const policy: ToolPolicy = { allowAdminTools: config.allow_admin_tools ?? false };
  return registry.toolsFor(policy);
}
