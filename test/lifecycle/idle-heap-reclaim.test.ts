import { describe, expect, it } from 'vitest';
import { startIdleHeapReclaim } from '../../src/lifecycle/idle-heap-reclaim.js';

describe('idle heap reclaim', () => {
  it('gives back the heap a burst left behind once the loop is quiet', async () => {
    // a burst: 200 MB of short-lived objects grows the heap past what stays live
    let keep: unknown[] = [];
    for (let round = 0; round < 200; round += 1) keep = Array.from({ length: 10_000 }, (_, index) => ({ index, text: `item ${index} of round ${round}` }));
    keep = [];
    const reclaimed = await new Promise<{ beforeBytes: number; afterBytes: number }>((resolve) => {
      const reclaim = startIdleHeapReclaim({ everyMs: 50, quietUtilization: 0.9, quietIntervals: 1, slackBytes: 1, startupSlackBytes: 1, onReclaim: (result) => (reclaim.stop(), resolve(result)) });
    });
    expect(keep).toHaveLength(0);
    expect(reclaimed.afterBytes).toBeLessThan(reclaimed.beforeBytes);
  });

  it('collects what start-up left once, at the first quiet interval, and then only a burst\'s worth', async () => {
    let reclaims = 0;
    const reclaim = startIdleHeapReclaim({ everyMs: 20, quietUtilization: 0.9, quietIntervals: 1, slackBytes: 2 ** 40, startupSlackBytes: 1, onReclaim: () => (reclaims += 1) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    reclaim.stop();
    expect(reclaims).toBe(1);
  });

  it('after start-up, waits for a lull longer than the pauses between bursts', async () => {
    // bursts of 10 ms every 60 ms leave at most two 20 ms intervals quiet in a row
    const reclaimsDuringBursts = async (quietIntervals: number) => {
      let reclaims = 0;
      const reclaim = startIdleHeapReclaim({ everyMs: 20, quietUtilization: 0.05, quietIntervals, slackBytes: 1, startupSlackBytes: 2 ** 40, onReclaim: () => (reclaims += 1) });
      const burstsUntil = Date.now() + 600;
      while (Date.now() < burstsUntil) {
        busyWork(10);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const during = reclaims;
      await new Promise((resolve) => setTimeout(resolve, 400));
      reclaim.stop();
      return { during, after: reclaims - during };
    };
    expect((await reclaimsDuringBursts(1)).during).toBeGreaterThan(0);
    const patient = await reclaimsDuringBursts(6);
    expect(patient.during).toBe(0);
    expect(patient.after).toBeGreaterThan(0);
  });

  it('does nothing while the loop is busy', async () => {
    let reclaims = 0;
    const reclaim = startIdleHeapReclaim({ everyMs: 20, quietUtilization: 0.05, quietIntervals: 1, slackBytes: 1, startupSlackBytes: 1, onReclaim: () => (reclaims += 1) });
    const busyUntil = Date.now() + 300;
    while (Date.now() < busyUntil) await new Promise((resolve) => setImmediate(() => resolve(busyWork())));
    reclaim.stop();
    expect(reclaims).toBe(0);
  });
});

function busyWork(ms = 5): number {
  let sum = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) sum += Math.random();
  return sum;
}
