import type { ChatRequest, Usage } from '../../llm/chat-model.js';
import type { LlmSpan } from '../turn-steps.js';

export interface PreparedRequest {
  request: ChatRequest;
  /** Uncorrected estimate of the prompt, for calibration; absent when nothing was measured. */
  rawTokens?: number;
}

/**
 * Shapes every model request of a run before it is sent: the history pipeline and context pressure
 * (pruning, mid-turn compaction, a last-resort squeeze), measured over the whole request. Injected
 * by the turn, which owns the store and the session lock.
 */
export interface ContextControl {
  /**
   * `overflowed`: the provider refused the last attempt as too long; shrink harder. `onSpan`: each model call the
   * preparation made (a mid-turn summary and its memory flush), as it ends, for the run's accounting.
   */
  prepare(request: ChatRequest, options: { overflowed: number; signal: AbortSignal; onSpan: (span: LlmSpan) => void }): Promise<PreparedRequest>;
  /** The provider's usage for a request that was sent. */
  observe(prepared: PreparedRequest, usage: Usage): void;
}
