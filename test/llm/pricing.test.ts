import { describe, expect, it } from 'vitest';
import { costOf, priceOf } from '../../src/llm/pricing.js';

describe('pricing', () => {
  it('prices input, output and cache tokens per million', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 200_000, cacheWriteTokens: 10_000 };
    // 3 + 1.5 + 0.06 + 0.0375
    expect(costOf('claude-sonnet-4-5', usage)).toBeCloseTo(4.5975, 6);
    expect(costOf('gpt-4o-mini', { inputTokens: 2_000_000, outputTokens: 1_000_000 })).toBeCloseTo(0.9, 6);
  });

  it('matches dated snapshots and router prefixes to the longest known name', () => {
    expect(priceOf('gpt-4o-mini-2024-07-18')).toEqual(priceOf('gpt-4o-mini'));
    expect(priceOf('gpt-4o-2024-08-06')).toEqual(priceOf('gpt-4o'));
    expect(priceOf('claude-sonnet-4-5-20250929')).toEqual(priceOf('claude-sonnet-4-5'));
    expect(priceOf('openai/gpt-4.1-mini')).toEqual(priceOf('gpt-4.1-mini'));
    expect(priceOf('gpt-4omni')).toBeUndefined();
  });

  it('costs an unknown model nothing, and lets overrides price it', () => {
    expect(costOf('llama-3-70b', { inputTokens: 1000, outputTokens: 1000 })).toBe(0);
    expect(costOf('llama-3-70b', { inputTokens: 1_000_000, outputTokens: 0 }, { 'llama-3-70b': { input: 0.5, output: 1 } })).toBe(0.5);
    expect(costOf('gpt-4o', { inputTokens: 1_000_000, outputTokens: 0 }, { 'gpt-4o': { input: 1, output: 1 } })).toBe(1);
  });
});
