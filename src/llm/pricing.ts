import type { Usage } from './chat-model.js';

/** USD per million tokens. Cache prices default to the input price when a model has none. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** List prices (standard tier, 5-minute cache writes); dated snapshots match by prefix. */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5.1': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  'claude-fable-5-1': { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 },
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-8': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-7': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-6': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
};

/**
 * Speech-to-text list prices: per million tokens (audio in, text out) for the models that report tokens, and per
 * minute of audio for those that report seconds.
 */
export const TRANSCRIPTION_PRICES: Readonly<Record<string, ModelPrice & { perMinute?: number }>> = {
  'gpt-4o-transcribe': { input: 6, output: 10, perMinute: 0.006 },
  'gpt-4o-mini-transcribe': { input: 3, output: 5, perMinute: 0.003 },
  'whisper-1': { input: 0, output: 0, perMinute: 0.006 },
};

/**
 * A transcription's cost: its tokens at the model's token price (LLM_PRICES may name the model too), or its
 * seconds at the per-minute price; undefined when no price is known.
 */
export function transcriptionCostOf(
  model: string,
  billed: { usage?: Usage | undefined; seconds?: number | undefined },
  overrides: Record<string, ModelPrice> = {},
): number | undefined {
  const name = model.slice(model.lastIndexOf('/') + 1);
  const price = overrides[name] ?? TRANSCRIPTION_PRICES[name];
  if (billed.usage && price) return (billed.usage.inputTokens * price.input + billed.usage.outputTokens * price.output) / 1_000_000;
  const perMinute = TRANSCRIPTION_PRICES[name]?.perMinute;
  if (billed.seconds !== undefined && perMinute !== undefined) return (billed.seconds / 60) * perMinute;
  return undefined;
}

/**
 * The price of a model name: exact, else the longest known name it starts with followed by `-`
 * (`gpt-4o-mini-2024-07-18`, `claude-sonnet-4-5-20250929`). A router prefix (`openai/gpt-4o`) is ignored.
 */
export function priceOf(model: string, overrides: Record<string, ModelPrice> = {}): ModelPrice | undefined {
  const name = model.slice(model.lastIndexOf('/') + 1);
  for (const table of [overrides, MODEL_PRICES]) {
    if (table[name]) return table[name];
    const prefix = Object.keys(table)
      .filter((known) => name.startsWith(`${known}-`))
      .sort((a, b) => b.length - a.length)[0];
    if (prefix) return table[prefix];
  }
  return undefined;
}

/** The cost of a call with LLM_PRICES over the built-in table; undefined for a model with no known price. */
export function priceTableOf(overrides: Record<string, ModelPrice> = {}): (model: string, usage: Usage) => number | undefined {
  return (model, usage) => (priceOf(model, overrides) ? costOf(model, usage, overrides) : undefined);
}

/** USD for one call; an unknown model costs 0 (we would rather under-report than guess). */
export function costOf(model: string, usage: Usage, overrides?: Record<string, ModelPrice>): number {
  const price = priceOf(model, overrides);
  if (!price) return 0;
  const tokens =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
    (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input);
  return tokens / 1_000_000;
}
