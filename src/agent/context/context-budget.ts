/** How much of the model's window a request may fill, and when the session is compacted mid-turn. */
export interface ContextBudget {
  contextWindow: number;
  /** Kept free for the answer: the request's max output tokens (at most a quarter of the window). */
  reservedOutputTokens: number;
  /** Share of the usable window above which the session is summarized mid-turn (seed 003: hard threshold). */
  compactAt: number;
}

export const DEFAULT_RESERVED_OUTPUT_TOKENS = 4096;
export const DEFAULT_COMPACT_AT = 0.8;

export function contextBudget(contextWindow: number, maxOutputTokens = DEFAULT_RESERVED_OUTPUT_TOKENS): ContextBudget {
  return {
    contextWindow,
    reservedOutputTokens: Math.min(maxOutputTokens, Math.floor(contextWindow / 4)),
    compactAt: DEFAULT_COMPACT_AT,
  };
}

/** The tokens a request may use: the window minus what the answer needs. */
export function usableTokens(budget: ContextBudget): number {
  return Math.max(1, budget.contextWindow - budget.reservedOutputTokens);
}
