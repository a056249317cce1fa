import { describe, expect, it } from 'vitest';
import { searchCapacity } from '../../bench/capacity-search.js';

/** A deployment that keeps up with every rate up to `limit` msg/s. */
const sustaining = (limit: number) => async (rate: number) => ({ passed: rate <= limit, ...(rate > limit ? { reason: 'overhead p99 over the bound' } : {}) });
const RATES = [8, 16, 32, 64, 128, 256, 384, 512];

describe('searchCapacity (the bench capacity phase)', () => {
  it('steps up to the first failure, then bisects once between the last pass and it', async () => {
    const result = await searchCapacity({ rates: RATES, deadline: Infinity, tryRate: sustaining(40) });
    expect(result.steps.map((step) => [step.rate, step.passed])).toEqual([[8, true], [16, true], [32, true], [64, false], [48, false]]);
    expect(result.capacity).toBe(32);
    expect(result.stoppedBy).toBe('failure');
  });

  it('takes the bisection rate when it passes', async () => {
    const result = await searchCapacity({ rates: RATES, deadline: Infinity, tryRate: sustaining(330) });
    expect(result.steps.map((step) => step.rate)).toEqual([8, 16, 32, 64, 128, 256, 384, 320]);
    expect(result.capacity).toBe(320);
  });

  it('reports the last rate as a lower bound when every rate passes', async () => {
    const result = await searchCapacity({ rates: RATES, deadline: Infinity, tryRate: sustaining(10_000) });
    expect(result.capacity).toBe(512);
    expect(result.stoppedBy).toBe('last-rate');
    expect(result.steps).toHaveLength(RATES.length);
  });

  it('reports 0 when even the first rate and half of it fail', async () => {
    const result = await searchCapacity({ rates: RATES, deadline: Infinity, tryRate: sustaining(3) });
    expect(result.steps.map((step) => [step.rate, step.passed, step.reason])).toEqual([
      [8, false, 'overhead p99 over the bound'],
      [4, false, 'overhead p99 over the bound'],
    ]);
    expect(result.capacity).toBe(0);
  });

  it('starts no step after the deadline', async () => {
    let clock = 0;
    const result = await searchCapacity({
      rates: RATES,
      deadline: 25,
      now: () => clock,
      tryRate: async (rate) => {
        clock += 10;
        return { passed: rate <= 1_000 };
      },
    });
    expect(result.steps.map((step) => step.rate)).toEqual([8, 16, 32]);
    expect(result.capacity).toBe(32);
    expect(result.stoppedBy).toBe('time');
  });
});
