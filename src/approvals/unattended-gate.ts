import type { ApprovalGate, GatedTool } from '../core/approval.js';
import { matchesToolPattern, needsApproval } from '../agent/tools/tool-registry.js';
import type { Logger } from '../observability/logger.js';

export interface UnattendedGateOptions {
  /** The agent's `schedules.allowTools` (names, `*`, `<server>__*`): privileged tools a scheduled run may use. */
  allowTools: readonly string[];
  /** The agent's `toolPolicy.requireApproval` patterns: a tool that would wait for a person in chat is privileged. */
  requireApproval: readonly string[];
  logger: Logger;
  /** For the log line of a refusal: the run, session and task. */
  context: { runId: string; sessionKey: string; taskId: string };
}

/** Tools a run with nobody watching may not use unless allowed: bash, CLI tools, file writes and sends, MCP tools that may change things, anything asked about in chat. */
export function isPrivileged(tool: GatedTool, requireApproval: readonly string[] = []): boolean {
  return tool.privileged === true || needsApproval(tool, requireApproval);
}

export function unattendedRefusal(toolName: string): string {
  return (
    `Error: ${toolName} is not available in a scheduled task's run. Nobody is watching a scheduled run, so tools that run ` +
    'commands, write or send files, or need a person\'s approval are refused unless the operator allows them for scheduled ' +
    'runs (schedules.allowTools in the config file). It was not run. Do not call it again in this run; say in your answer ' +
    'what you could not do, and that the user can ask for it in the chat.'
  );
}

/**
 * The gate of a scheduled task's run (CONTRACT §12, seed 001 S6.14): nobody can be asked, and what a person
 * allowed "for this session" in the chat does not reach it. Privileged tools are refused with a tool result the
 * model can explain unless the config file allows them for scheduled runs of the agent; the rest run.
 */
export function createUnattendedGate(options: UnattendedGateOptions): ApprovalGate {
  return {
    async check(_call, tool) {
      if (!isPrivileged(tool, options.requireApproval)) return { kind: 'allow' };
      if (options.allowTools.some((pattern) => matchesToolPattern(pattern, tool.name))) return { kind: 'allow' };
      options.logger.warn({ ...options.context, tool: tool.name }, 'scheduled run: privileged tool refused (not in schedules.allowTools)');
      return { kind: 'deny', reason: 'not allowed in a scheduled run', toolResult: unattendedRefusal(tool.name) };
    },
  };
}
