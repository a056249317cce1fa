import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleHeapReclaimOptions {
  /** How often the process looks at itself. */
  everyMs: number;
  /** Below this share of the last interval's event loop time spent working, the process counts as quiet. */
  quietUtilization: number;
  /**
   * Quiet intervals in a row, with no work under way (`isBusy`), before the collection runs: its pause (80–150 ms
   * after a burst) is paid only by a process likely to stay quiet, not by the first messages after a short lull.
   */
  quietIntervals: number;
  /** Heap V8 holds beyond what is live, in bytes, worth a collection to give back. */
  slackBytes: number;
  /** The same for the first quiet stretch after start-up: what loading the code and connecting left behind. */
  startupSlackBytes: number;
  /**
   * Whether the process had work under way during the interval (ProcessActivity.busyProbe): a quiet event loop is not
   * enough, a trickle of messages keeps it under 5 % busy, and the collection would stop one of them.
   */
  isBusy?: () => boolean;
  onReclaim?: (reclaim: { beforeBytes: number; afterBytes: number; pauseMs: number }) => void;
}

export const IDLE_HEAP_RECLAIM: IdleHeapReclaimOptions = { everyMs: 500, quietUtilization: 0.05, quietIntervals: 3, slackBytes: 48 * 2 ** 20, startupSlackBytes: 4 * 2 ** 20 };

/**
 * After a burst, V8 keeps the old space it grew for the turns in flight (some 400 MB for 60 MB live after the
 * bench's 10,000 new sessions) and gives it back to the system only when its memory reducer gets round to it,
 * 8 s after the last full collection at the earliest, and not under a trickle of messages. When the event loop has
 * been quiet for `quietIntervals` whole intervals in a row and the heap holds more than `slackBytes` it does not use,
 * V8's memory-reducing collection runs once (the one a low-memory notification runs: full collections, then the
 * emptied pages go back to the system; tens of ms, with nothing waiting on the loop). Under load it never runs: the
 * memory is in use then; nor while a message is being handled or a turn runs (`isBusy`), so under a trickle it waits
 * for a pause. Start-up is a burst too (some 12 MB of garbage and pooled pages at idle): the first quiet stretch
 * collects it.
 */
export function startIdleHeapReclaim(options: IdleHeapReclaimOptions = IDLE_HEAP_RECLAIM): { stop(): void } {
  const collect = memoryReducingGc();
  if (collect === undefined) return { stop() {} };
  let last = performance.eventLoopUtilization();
  let slackBytes = options.startupSlackBytes;
  let quietFor = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const quiet = performance.eventLoopUtilization(now, last).utilization < options.quietUtilization;
    last = now;
    // asked every interval, so that it answers for this interval only
    const busy = options.isBusy?.() ?? false;
    quietFor = quiet && !busy ? quietFor + 1 : 0;
    if (quietFor < options.quietIntervals) return;
    const heap = getHeapStatistics();
    const enough = heap.total_heap_size - heap.used_heap_size >= slackBytes;
    slackBytes = options.slackBytes;
    if (!enough) return;
    const startedAt = performance.now();
    collect();
    options.onReclaim?.({ beforeBytes: heap.total_heap_size, afterBytes: getHeapStatistics().total_heap_size, pauseMs: performance.now() - startedAt });
    // the collection itself counts as work: the next interval starts after it
    last = performance.eventLoopUtilization();
    quietFor = 0;
  }, options.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

type GcExtension = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;

/**
 * V8's gc extension (what `--expose-gc` installs, switched on at run time: no flag on the command line); its
 * `last-resort` flavour is the memory-reducing collection that also releases the freed pages at once, where a
 * regular one leaves them pooled and resident.
 */
function memoryReducingGc(): (() => void) | undefined {
  let gc: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc');
    } catch {
      return undefined;
    }
  }
  if (typeof gc !== 'function') return undefined;
  const extension = gc as GcExtension;
  return () => extension({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
