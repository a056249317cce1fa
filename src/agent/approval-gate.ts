import type { ToolCallPart } from '../core/chat-message.js';
import type { AgentTool } from './tools/agent-tool.js';

/**
 * What a person said (or has yet to say) about one tool call:
 * `allow` run it; `deny` give the model a result saying so (`toolResult`, or one saying the user did not allow
 * it); `wait` no answer yet, the turn parks until `untilMs` (then the call counts as denied); `stop` the user
 * stopped the turn while it waited.
 */
export type ApprovalVerdict =
  | { kind: 'allow'; decision?: ApprovalDecision }
  | { kind: 'deny'; reason: string; decision?: ApprovalDecision; toolResult?: string }
  | { kind: 'wait'; untilMs: number }
  | { kind: 'stop' };

/** A person's answer (or the timeout), for the run's trace: asked when, decided when, what and by whom. */
export interface ApprovalDecision {
  askedAt: number;
  decidedAt: number;
  /** e.g. `allowed-once by U123`. */
  summary: string;
}

/**
 * Asked before each tool call. The loop stays pure: the gate (turn layer) knows the policy, asks the
 * person in the chat, and remembers the answers durably so that a resumed turn gets the same verdict.
 */
export interface ApprovalGate {
  check(call: ToolCallPart, tool: AgentTool): Promise<ApprovalVerdict>;
}

export function deniedToolResult(reason: string): string {
  return `Error: the user did not allow this tool call (${reason}). It was not run. Do not call it again in this turn unless the user asks; tell the user what you could not do.`;
}
