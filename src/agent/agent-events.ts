import type { ChatMessage } from '../core/chat-message.js';
import type { Usage } from '../llm/chat-model.js';
import type { FinalReply } from './output/silent-reply.js';

/** What a tool call's span and its approval's span both say (the call, its timing and outcome). */
interface ToolCallSpanFields {
  name: string;
  toolCallId: string;
  /** Made by a sub-agent: the id of the `spawn_agent` call it ran for (the console nests it there). */
  parentToolCallId?: string | undefined;
  startedAt: number;
  durationMs: number;
  isError: boolean;
  error: string | undefined;
  outputPreview: string;
}

/** Why a model call outside the agent loop was made for the turn: compaction's summary or its memory flush. */
export type LlmCallPurpose = 'summary' | 'memory-flush';

/** One span of a run's trace: an LLM call, a tool call, an approval answer or an attachment's download. */
export type TraceSpan =
  | {
      kind: 'llm';
      name: string; // `${provider}:${model}`
      provider: string;
      model: string;
      /** The loop's iteration (1…); 0 for a call made for the turn outside the loop (see `purpose`). */
      iteration: number;
      /** Set on calls made outside the loop (compaction); stored as the span's output preview. */
      purpose?: LlmCallPurpose | undefined;
      startedAt: number;
      durationMs: number;
      usage: Usage | undefined;
      costUsd: number | undefined;
      error: string | undefined;
      /** The request messages as JSON, only with TRACE_VERBOSE (truncated at 50,000 characters). */
      input: string | undefined;
      /** Made by a sub-agent: the id of the `spawn_agent` call it ran for (the console nests it there). */
      parentToolCallId?: string | undefined;
    }
  | ({ kind: 'tool' } & ToolCallSpanFields)
  /** A person's answer to an approval request: from the request to the decision; `outputPreview` says who decided what, `isError` a denial. */
  | ({ kind: 'approval' } & ToolCallSpanFields)
  /** An attachment's download or transcription at turn time (`download:image`, `transcribe`); `detail` says bytes, type, outcome. */
  | {
      kind: 'media';
      name: string;
      startedAt: number;
      durationMs: number;
      error: string | undefined;
      detail: string;
      /** A transcription's tokens, when the provider reports them (per-minute models report seconds: see `detail`). */
      usage?: Usage | undefined;
      /** A transcription's cost, when its price is known. */
      costUsd?: number | undefined;
      parentToolCallId?: string | undefined;
    };

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
  | { type: 'tool-call-start'; toolCallId: string; name: string; args: unknown }
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
