import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startIdleHeapReclaim } from '../../src/lifecycle/idle-heap-reclaim.js';
import { loadNativeHeapTrim } from '../../src/lifecycle/native-heap-trim.js';

/** Every interval is quiet by the loop's measure (utilization is at most 1) and any slack is enough: only `isBusy` decides. */
const ONLY_WORK_DECIDES = { everyMs: 20, quietUtilization: 1.01, slackBytes: 1, startupSlackBytes: 1 };

const MB = 2 ** 20;
/** As ONLY_WORK_DECIDES, with no heap collection ever due: only the C heap's trim is looked at, at every look. */
const ONLY_THE_TRIM = { ...ONLY_WORK_DECIDES, quietIntervals: 1, slackBytes: 2 ** 50, startupSlackBytes: 2 ** 50, nativeSlackBytes: 16 * MB, startupNativeSlackBytes: 16 * MB };

/** Resolves once `looks()` has grown by `count` (each look of the reclaim asks `isBusy` once). */
async function moreLooks(looks: () => number, count: number): Promise<void> {
  const target = looks() + count;
  while (looks() < target) await new Promise((resolve) => setTimeout(resolve, 5));
}

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

  it('trims the C heap once the memory outside V8\'s heap has grown past its floor by the slack, and counts from what is left', async () => {
    let rss = 200 * MB;
    const heapTotal = 50 * MB;
    const trims: Array<{ beforeBytes: number; afterBytes: number }> = [];
    let loads = 0;
    let trimCalls = 0;
    let looks = 0;
    const reclaim = startIdleHeapReclaim({
      ...ONLY_THE_TRIM,
      readMemory: () => ({ rss, heapTotal }),
      isBusy: () => ((looks += 1), false),
      loadTrim: async () => {
        loads += 1;
        return () => {
          trimCalls += 1;
          rss -= 40 * MB;
          return true;
        };
      },
      onTrim: (trim) => trims.push(trim),
    });
    try {
      // the floor is 150 MB outside the heap (read at start): 15 MB more is under the slack
      rss += 15 * MB;
      await moreLooks(() => looks, 3);
      expect(trimCalls).toBe(0);
      // 45 MB more (210 MB outside): the trim loads and runs at once, then the floor is what is left (170 MB)
      rss += 45 * MB;
      await moreLooks(() => looks, 3);
      expect(loads).toBe(1);
      expect(trims).toMatchObject([{ beforeBytes: 210 * MB, afterBytes: 170 * MB }]);
      // 10 MB more does nothing, 20 MB more trims again without loading again
      rss += 10 * MB;
      await moreLooks(() => looks, 3);
      expect(trimCalls).toBe(1);
      rss += 10 * MB;
      await moreLooks(() => looks, 3);
      expect(trimCalls).toBe(2);
      expect(loads).toBe(1);
      expect(trims[1]).toMatchObject({ beforeBytes: 190 * MB, afterBytes: 150 * MB });
    } finally {
      reclaim.stop();
    }
  });

  it('trims at the first quiet look after start-up whatever the growth, and later only past the slack', async () => {
    let rss = 200 * MB;
    let looks = 0;
    const trims: number[] = [];
    const reclaim = startIdleHeapReclaim({
      ...ONLY_THE_TRIM,
      startupNativeSlackBytes: 0,
      readMemory: () => ({ rss, heapTotal: 0 }),
      isBusy: () => ((looks += 1), false),
      loadTrim: async () => () => {
        trims.push(looks);
        rss -= 5 * MB;
        return true;
      },
    });
    try {
      await moreLooks(() => looks, 5);
      // once, for the first look: what start-up left
      expect(trims).toEqual([1]);
      rss += 20 * MB;
      await moreLooks(() => looks, 3);
      expect(trims).toHaveLength(2);
    } finally {
      reclaim.stop();
    }
  });

  it('leaves the C heap alone while the process has work under way', async () => {
    let rss = 200 * MB;
    let trims = 0;
    let looks = 0;
    const reclaim = startIdleHeapReclaim({
      ...ONLY_THE_TRIM,
      readMemory: () => ({ rss, heapTotal: 0 }),
      isBusy: () => ((looks += 1), true),
      loadTrim: async () => () => ((trims += 1), true),
    });
    rss += 100 * MB;
    await moreLooks(() => looks, 10);
    reclaim.stop();
    expect(trims).toBe(0);
  });
});

describe('the C heap trim', () => {
  it('gives back the pages a burst of Buffers left resident (glibc)', async () => {
    const trim = await loadNativeHeapTrim();
    expect(trim).toBeDefined();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // 120 MB of 2 KB Buffers (each its own malloc chunk), one in 20 kept: the freed ones sit between live chunks
    let buffers: Buffer[] = Array.from({ length: 60_000 }, () => Buffer.allocUnsafeSlow(2_048).fill(1));
    const kept = buffers.filter((_, index) => index % 20 === 0);
    buffers = [];
    gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
    gc();
    const before = process.memoryUsage.rss();
    expect(trim!()).toBe(true);
    const after = process.memoryUsage.rss();
    expect(kept).toHaveLength(3_000);
    expect(before - after).toBeGreaterThan(60 * MB);
  });
});

function busyWork(): number {
  let sum = 0;
  const end = Date.now() + 5;
  while (Date.now() < end) sum += Math.random();
  return sum;
}
