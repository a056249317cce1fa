import type { Usage } from '../../llm/chat-model.js';

/** How far one observation may move the factor, and the bounds it stays in. */
const SMOOTHING = 0.3;
const MIN_FACTOR = 0.5;
const MAX_FACTOR = 3;

/**
 * The provider's own count of each prompt corrects our estimate: a per-model factor (reported ÷ estimated),
 * smoothed, that later estimates are multiplied by. Anthropic's tokenizer, a model's chat template and
 * images all differ from the o200k-like estimate; after a call or two the factor has learned the gap.
 */
export class TokenCalibration {
  readonly #factors = new Map<string, number>();

  /** Keys are `provider:model`; the initial factor is the provider's until the first usage report. */
  constructor(private readonly initialFactor: (model: string) => number = (key) => initialFactorFor(key.startsWith('anthropic:') ? 'anthropic' : 'openai')) {}

  factor(model: string): number {
    return this.#factors.get(model) ?? this.initialFactor(model);
  }

  /** Scales an estimate for this model. */
  correct(model: string, estimatedTokens: number): number {
    return Math.ceil(estimatedTokens * this.factor(model));
  }

  /** Learns from one call: the raw (uncorrected) estimate of the request and the usage the provider reported. */
  observe(model: string, rawEstimate: number, usage: Usage): void {
    const reported = promptTokensOf(usage);
    if (rawEstimate < 50 || reported <= 0) return;
    const observed = Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, reported / rawEstimate));
    const previous = this.#factors.get(model);
    this.#factors.set(model, previous === undefined ? observed : previous + SMOOTHING * (observed - previous));
  }
}

/** Every token of the prompt: fresh, read from the cache and written to it. */
export function promptTokensOf(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** Anthropic's tokenizer yields more tokens than o200k for the same text; start with a margin until usage corrects it. */
export function initialFactorFor(provider: 'openai' | 'anthropic'): number {
  return provider === 'anthropic' ? 1.2 : 1;
}
