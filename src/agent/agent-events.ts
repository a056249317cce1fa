import type { ChatMessage } from '../core/chat-message.js';
import type { Usage } from '../llm/chat-model.js';
import type { FinalReply } from './output/silent-reply.js';
import type { TraceSpan } from '../core/trace-span.js';

export type { LlmCallPurpose, TraceSpan } from '../core/trace-span.js';

export interface RunOutcome {
  /** Messages this run added after the input messages (assistant, tool), in order. */
  messages: ChatMessage[];
  usage: Usage;
  costUsd: number;
  iterations: number;
  spans: TraceSpan[];
}

/** Noun-then-action events of one agent run; the last one is always run-end, run-error, run-cancel or run-park. */
export type AgentEvent =
  | { type: 'run-start'; runId: string }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** `label`: the tool's short human line for this call ("Running `ls`…"), when it declares one. */
  | { type: 'tool-call-start'; toolCallId: string; name: string; args: unknown; label?: string }
  | { type: 'tool-call-end'; toolCallId: string; name: string; isError: boolean; output: string }
  /**
   * A model call failed over (CONTRACT §17): `from` (`provider:model`) failed with a retryable error (`reason`, its
   * code) and the same request went to `to`. Text streamed since the call began was the failed attempt's: void.
   */
  | { type: 'model-failover'; from: string; to: string; reason: string }
  /** The model repeated one tool call with the same arguments `times` times in a row; the turn ends with its answer. */
  | { type: 'loop-detected'; name: string; times: number }
  /** `text` is the raw final assistant text; `reply` is what to deliver (sanitized, NO_REPLY handled). */
  | ({ type: 'run-end'; text: string; reply: FinalReply } & RunOutcome)
  | ({ type: 'run-error'; error: unknown } & RunOutcome)
  /** `by: 'user'`: the user stopped the turn while it waited for an approval (no abort signal was involved). */
  | ({ type: 'run-cancel'; by?: 'signal' | 'user' } & RunOutcome)
  /** A tool call waits for a person's approval: the turn's steps are saved; it resumes after the answer or at `untilMs`. */
  | ({ type: 'run-park'; untilMs: number; toolName: string } & RunOutcome);

export type TerminalEvent = Extract<AgentEvent, { type: 'run-end' | 'run-error' | 'run-cancel' | 'run-park' }>;

export function isTerminalEvent(event: AgentEvent): event is TerminalEvent {
  return event.type === 'run-end' || event.type === 'run-error' || event.type === 'run-cancel' || event.type === 'run-park';
}
