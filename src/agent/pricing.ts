import type { Usage } from '../llm/chat-model.js';

/** Cost in US dollars of one call; undefined when the model has no known price. */
export type PriceTable = (model: string, usage: Usage) => number | undefined;

/** US dollars per million tokens. */
export interface ModelRates {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * A price table from per-model rates; a model matches its exact name or, failing that, the
 * longest rate key it starts with (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`).
 */
export function priceTableFrom(rates: Record<string, ModelRates>): PriceTable {
  const keys = Object.keys(rates).sort((left, right) => right.length - left.length);
  return (model, usage) => {
    const key = model in rates ? model : keys.find((candidate) => model.startsWith(candidate));
    const rate = key === undefined ? undefined : rates[key];
    if (!rate) return undefined;
    const dollars =
      usage.inputTokens * rate.input +
      usage.outputTokens * rate.output +
      (usage.cacheReadTokens ?? 0) * (rate.cacheRead ?? rate.input) +
      (usage.cacheWriteTokens ?? 0) * (rate.cacheWrite ?? rate.input);
    return dollars / 1_000_000;
  };
}

/** List prices at the time of writing; deployments override them from config. */
export const DEFAULT_MODEL_RATES: Record<string, ModelRates> = {
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'claude-haiku-4': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
};
