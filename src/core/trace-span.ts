import type { Usage } from './usage.js';

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

/**
 * Where a model call's prompt went, in estimated tokens (the estimator's own count, before the provider's correction):
 * the system prompt without its memory section, the tool schemas, the memory section, the summary preamble, the
 * stored history, the new message(s), and what the turn added before this call (tool calls and results).
 */
export interface PromptSplit {
  system: number;
  tools: number;
  memories: number;
  summary: number;
  history: number;
  message: number;
  turn: number;
}

export const PROMPT_SPLIT_PARTS = ['system', 'tools', 'memories', 'summary', 'history', 'message', 'turn'] as const;

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
      /** Why the model stopped (`stop`, `tool-use`, `length`, `content-filter`), when it answered. */
      finishReason?: string | undefined;
      /** Where the prompt went (a turn's own calls; absent for summaries and sub-agents). */
      promptSplit?: PromptSplit | undefined;
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
