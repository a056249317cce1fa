import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { bucketsDelta, bucketsOf, quantileOf, shareAtOrBelow } from '../../bench/histogram.js';
import { parseSamples } from '../../bench/prometheus.js';

/** A real prom-client histogram, read back through its text exposition as the bench scrapes it. */
function exposition() {
  const registry = new Registry();
  const histogram = new Histogram({ name: 'ack_seconds', help: 'h', labelNames: ['channel'], buckets: [0.001, 0.005, 0.01, 0.05], registers: [registry] });
  return { histogram, read: async () => parseSamples(await registry.metrics()) };
}

describe('server-side histograms in the bench', () => {
  it('sums the buckets over label sets and processes', async () => {
    const first = exposition();
    const second = exposition();
    first.histogram.observe({ channel: 'telegram' }, 0.0005);
    first.histogram.observe({ channel: 'slack' }, 0.003);
    second.histogram.observe({ channel: 'telegram' }, 0.02);
    const buckets = bucketsOf([await first.read(), await second.read()], 'ack_seconds');
    expect(buckets.bounds).toEqual([0.001, 0.005, 0.01, 0.05, Infinity]);
    expect(buckets.counts).toEqual([1, 2, 2, 3, 3]);
  });

  it('counts only what a phase observed, and interpolates its quantiles inside a bucket as histogram_quantile does', async () => {
    const { histogram, read } = exposition();
    for (let i = 0; i < 50; i++) histogram.observe({ channel: 'telegram' }, 0.04); // before the phase
    const before = bucketsOf([await read()], 'ack_seconds');
    for (let i = 0; i < 90; i++) histogram.observe({ channel: 'telegram' }, 0.0008);
    for (let i = 0; i < 10; i++) histogram.observe({ channel: 'telegram' }, 0.007);
    const phase = bucketsDelta(bucketsOf([await read()], 'ack_seconds'), before);
    expect(phase.counts).toEqual([90, 90, 100, 100, 100]);
    expect(quantileOf(phase, 0.5)).toBeCloseTo(0.001 * (50 / 90), 9);
    // rank 99 of 100 lies in (0.005, 0.01], the 9th of its 10 observations
    expect(quantileOf(phase, 0.99)).toBeCloseTo(0.005 + 0.005 * (9 / 10), 9);
    expect(shareAtOrBelow(phase, 0.005)).toBe(0.9);
  });

  it('gives the highest finite bound for a quantile past the last bucket, and null with no observations', async () => {
    const { histogram, read } = exposition();
    const empty = bucketsOf([await read()], 'ack_seconds');
    expect(quantileOf(empty, 0.99)).toBeNull();
    expect(shareAtOrBelow(empty, 0.005)).toBeNull();
    histogram.observe({ channel: 'telegram' }, 3);
    expect(quantileOf(bucketsOf([await read()], 'ack_seconds'), 0.99)).toBe(0.05);
  });
});
