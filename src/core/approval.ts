import type { ToolCallPart } from './chat-message.js';

/**
 * The approvals contract: what a channel renders and answers (prompt, answer, sink) and what the agent loop
 * asks before a tool call (the gate's verdict). Everything with behaviour lives in `src/approvals/`.
 */

/** The three buttons of an approval request (CONTRACT §11). */
export type ApprovalChoice = 'once' | 'session' | 'deny';

/** What the bot asks in the chat; platform-neutral, rendered by each channel with its own buttons. */
export interface ApprovalPrompt {
  approvalId: string;
  toolName: string;
  /** The call's arguments, shortened for display. */
  argumentsPreview: string;
}

/** A click on one of the buttons, verified by the channel (signature, token) and normalized. */
export interface ApprovalAnswer {
  approvalId: string;
  choice: ApprovalChoice;
  /** Who clicked, as the platform identifies users (the same ids as `Sender.id`). */
  userId: string;
  userName?: string;
}

/** `accepted`: the decision was taken (the prompt shows it); `refused`: not this user, already answered, expired. */
export type ApprovalAnswerResult = { kind: 'accepted' | 'refused'; text: string };

export type ApprovalSink = (answer: ApprovalAnswer) => Promise<ApprovalAnswerResult>;

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

/** What a gate knows of a tool (an `AgentTool` fits). */
export interface GatedTool {
  name: string;
  requiresApproval?: boolean;
  privileged?: boolean;
}

/**
 * Asked before each tool call. The loop stays pure: the gate (turn layer) knows the policy, asks the
 * person in the chat, and remembers the answers durably so that a resumed turn gets the same verdict.
 */
export interface ApprovalGate {
  check(call: ToolCallPart, tool: GatedTool): Promise<ApprovalVerdict>;
}

export function deniedToolResult(reason: string): string {
  return `Error: the user did not allow this tool call (${reason}). It was not run. Do not call it again in this turn unless the user asks; tell the user what you could not do.`;
}
