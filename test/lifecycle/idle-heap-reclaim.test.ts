import { describe, expect, it } from 'vitest';
import { startIdleHeapReclaim } from '../../src/lifecycle/idle-heap-reclaim.js';

/** Every interval is quiet by the loop's measure (utilization is at most 1) and any slack is enough: only `isBusy` decides. */
const ONLY_WORK_DECIDES = { everyMs: 20, quietUtilization: 1.01, slackBytes: 1, startupSlackBytes: 1 };

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

  it('waits while the process has work under way, however quiet its loop, and collects once it has none', async () => {
    // a trickle of messages (or a turn waiting on its model) keeps the loop under 5 % busy: quiet by that measure
    let busy = true;
    let reclaims = 0;
    let reclaimedAfterIdle!: () => void;
    const idleReclaim = new Promise<void>((resolve) => (reclaimedAfterIdle = resolve));
    const reclaim = startIdleHeapReclaim({
      ...ONLY_WORK_DECIDES,
      quietIntervals: 1,
      isBusy: () => busy,
      onReclaim: () => {
        reclaims += 1;
        if (!busy) reclaimedAfterIdle();
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reclaims).toBe(0);
    busy = false;
    await idleReclaim;
    reclaim.stop();
    expect(reclaims).toBeGreaterThan(0);
  });

  it('waits for several quiet intervals in a row, and starts counting again after one with work', async () => {
    let looks = 0;
    const looksAtReclaim: number[] = [];
    let reclaimed!: () => void;
    const done = new Promise<void>((resolve) => (reclaimed = resolve));
    const reclaim = startIdleHeapReclaim({
      ...ONLY_WORK_DECIDES,
      quietIntervals: 4,
      // one interval with work after the second look: the count starts again from there
      isBusy: () => {
        looks += 1;
        return looks === 3;
      },
      onReclaim: () => {
        looksAtReclaim.push(looks);
        reclaimed();
      },
    });
    await done;
    reclaim.stop();
    // looks 1–2 quiet, 3 busy, 4–7 quiet: the fourth quiet look in a row is the seventh
    expect(looksAtReclaim).toEqual([7]);
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

function busyWork(): number {
  let sum = 0;
  const end = Date.now() + 5;
  while (Date.now() < end) sum += Math.random();
  return sum;
}
