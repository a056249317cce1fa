import { describe, expect, it } from 'vitest';
import { dayKeyTtlSeconds, nextUtcMidnight, utcDay } from '../../src/budgets/budget-day.js';

describe('budget days', () => {
  it('names each UTC day apart, also when moments of the same day come in a row', () => {
    const midnight = Date.UTC(2026, 10, 28);
    expect([midnight, midnight + 86_399_999, midnight + 86_400_000, midnight - 1, midnight + 5].map(utcDay)).toEqual([
      '2026-11-28',
      '2026-11-28',
      '2026-11-29',
      '2026-11-27',
      '2026-11-28',
    ]);
  });

  it('resets at the next UTC midnight and keeps a key an hour past it', () => {
    const noon = Date.UTC(2026, 10, 28, 12);
    expect(nextUtcMidnight(noon).toISOString()).toBe('2026-11-29T00:00:00.000Z');
    expect(dayKeyTtlSeconds(noon)).toBe(12 * 3600 + 3600);
  });
});
