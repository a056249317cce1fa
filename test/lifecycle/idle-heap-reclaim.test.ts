import { describe, expect, it } from 'vitest';
import { startIdleHeapReclaim } from '../../src/lifecycle/idle-heap-reclaim.js';

describe('idle heap reclaim', () => {
  it('gives back the heap a burst left behind once the loop is quiet', async () => {
    // a burst: 200 MB of short-lived objects grows the heap past what stays live
    let keep: unknown[] = [];
    for (let round = 0; round < 200; round += 1) keep = Array.from({ length: 10_000 }, (_, index) => ({ index, text: `item ${index} of round ${round}` }));
    keep = [];
    const reclaimed = await new Promise<{ beforeBytes: number; afterBytes: number }>((resolve) => {
      const reclaim = startIdleHeapReclaim({ everyMs: 50, quietUtilization: 0.9, slackBytes: 1, startupSlackBytes: 1, onReclaim: (result) => (reclaim.stop(), resolve(result)) });
    });
    expect(keep).toHaveLength(0);
    expect(reclaimed.afterBytes).toBeLessThan(reclaimed.beforeBytes);
  });

  it('collects what start-up left once, at the first quiet interval, and then only a burst\'s worth', async () => {
    let reclaims = 0;
    const reclaim = startIdleHeapReclaim({ everyMs: 20, quietUtilization: 0.9, slackBytes: 2 ** 40, startupSlackBytes: 1, onReclaim: () => (reclaims += 1) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    reclaim.stop();
    expect(reclaims).toBe(1);
  });

  it('does nothing while the loop is busy', async () => {
    let reclaims = 0;
    const reclaim = startIdleHeapReclaim({ everyMs: 20, quietUtilization: 0.05, slackBytes: 1, startupSlackBytes: 1, onReclaim: () => (reclaims += 1) });
    const busyUntil = Date.now() + 300;
    while (Date.now() < busyUntil) await new Promise((resolve) => setImmediate(() => resolve(busyWork())));
    reclaim.stop();
    expect(reclaims).toBe(0);
  });
});

function busyWork(): number {
  let sum = 0;
  const end = Date.now() + 5;
  while (Date.now() < end) sum += Math.random();
  return sum;
}
