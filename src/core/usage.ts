/** Tokens one model call (or a whole run) used; prices turn it into dollars in `llm`. */
export interface Usage {
  /** Input tokens neither read from nor written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** The sum of two usages; cache counts only when either side reports them. */
export function addUsage(total: Usage, usage: Usage): Usage {
  const sum: Usage = { inputTokens: total.inputTokens + usage.inputTokens, outputTokens: total.outputTokens + usage.outputTokens };
  if (total.cacheReadTokens !== undefined || usage.cacheReadTokens !== undefined) sum.cacheReadTokens = (total.cacheReadTokens ?? 0) + (usage.cacheReadTokens ?? 0);
  if (total.cacheWriteTokens !== undefined || usage.cacheWriteTokens !== undefined) sum.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
  return sum;
}
