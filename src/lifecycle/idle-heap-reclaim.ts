/*
 * Why a forced collection and a C-heap trim, not a plainer means (issue 54, measured 2026-12-07, bench/HISTORY.md): after
 * the bench's 10,000 new sessions the process is at 144-147 MB with them; without them 449-456 MB (436-468 MB with
 * MALLOC_ARENA_MAX=2), and 129-132 MB idle after start-up against 105-111 MB. V8's own memory reducer never runs in
 * a quiet process after a burst (`--trace-memory-reducer`: "high alloc", its allocation rate is only measured at
 * collections, and none comes), even with its start delay cut to 1 s. `--optimize-for-size` holds the RSS at 156-157 MB
 * for 1.4-1.8 times the CPU per message, and 115-116 MB idle. The collection alone, without the trim, leaves
 * 196-223 MB (175-181 MB with MALLOC_MMAP_THRESHOLD_=65536 too, an environment variable a process cannot set for
 * itself): glibc keeps the freed Buffers' pages.
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadNativeHeapTrim, type NativeHeapTrim } from './native-heap-trim.js';

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
  /**
   * Growth of the memory outside V8's heap (resident set minus the heap V8 holds) past its floor (its lowest reading
   * since start or since the last trim), in bytes, worth trimming the C heap for (see native-heap-trim.ts). Unset:
   * never trimmed.
   */
  nativeSlackBytes?: number;
  /** The same for the first quiet stretch after start-up (0: trimmed then whatever it grew). */
  startupNativeSlackBytes?: number;
  /** How the C heap is trimmed (loaded on the first trim); undefined: it cannot be. */
  loadTrim?: () => Promise<NativeHeapTrim | undefined>;
  /** The resident set and the heap V8 holds, in bytes (process.memoryUsage's). */
  readMemory?: () => { rss: number; heapTotal: number };
  onTrim?: (trim: { beforeBytes: number; afterBytes: number; pauseMs: number }) => void;
}

export const IDLE_HEAP_RECLAIM: IdleHeapReclaimOptions = {
  everyMs: 500,
  quietUtilization: 0.05,
  quietIntervals: 3,
  slackBytes: 48 * 2 ** 20,
  startupSlackBytes: 4 * 2 ** 20,
  nativeSlackBytes: 16 * 2 ** 20,
  startupNativeSlackBytes: 0,
};

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
 *
 * The C heap keeps what a burst freed too (the Buffers' memory: 50–60 MB resident with 11 MB in use after the bench's
 * 10,000 new sessions). At the same quiet moments, once the memory outside V8's heap has grown `nativeSlackBytes`
 * past its floor, the C heap is trimmed (native-heap-trim.ts; some ms per 100 MB) and the floor starts again from
 * what is left. The first quiet stretch after start-up trims whatever the growth (`startupNativeSlackBytes`):
 * loading the code leaves freed chunks resident too, more than the 8 MB the FFI's code costs (idle RSS 109.6–110.3
 * MB without the trim, 102–107 MB with it, in the bench's idle phase).
 */
export function startIdleHeapReclaim(options: IdleHeapReclaimOptions = IDLE_HEAP_RECLAIM): { stop(): void } {
  const collect = memoryReducingGc();
  if (collect === undefined) return { stop() {} };
  let last = performance.eventLoopUtilization();
  let slackBytes = options.startupSlackBytes;
  let quietFor = 0;
  const trimNative = options.nativeSlackBytes === undefined ? undefined : nativeTrimmer(options);
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
    if (enough) {
      const startedAt = performance.now();
      collect();
      options.onReclaim?.({ beforeBytes: heap.total_heap_size, afterBytes: getHeapStatistics().total_heap_size, pauseMs: performance.now() - startedAt });
    }
    // after the collection: the Buffers it found dead have given their memory back to the C heap
    const trimmed = trimNative?.() ?? false;
    if (!enough && !trimmed) return;
    // the collection and the trim count as work: the next interval starts after them
    last = performance.eventLoopUtilization();
    quietFor = 0;
  }, options.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * At each quiet look: trims the C heap when the memory outside V8's heap has grown `nativeSlackBytes` past its
 * floor (true when it trimmed); at the first look, `startupNativeSlackBytes`. The first floor is read at start. The
 * trim loads in the background the first time it is wanted and runs as soon as it has loaded (tens of ms after a
 * quiet look).
 */
function nativeTrimmer(options: IdleHeapReclaimOptions): () => boolean {
  let slackBytes = options.startupNativeSlackBytes ?? options.nativeSlackBytes!;
  const readMemory = options.readMemory ?? (() => process.memoryUsage());
  const outsideHeap = (): number => {
    const { rss, heapTotal } = readMemory();
    return rss - heapTotal;
  };
  let floor = outsideHeap();
  let trim: NativeHeapTrim | undefined;
  let loading: Promise<unknown> | undefined;
  const trimNow = (outside: number): void => {
    const startedAt = performance.now();
    trim!();
    const pauseMs = performance.now() - startedAt;
    floor = outsideHeap();
    options.onTrim?.({ beforeBytes: outside, afterBytes: floor, pauseMs });
  };
  return () => {
    const outside = outsideHeap();
    floor = Math.min(floor, outside);
    const enough = outside - floor >= slackBytes;
    slackBytes = options.nativeSlackBytes!;
    if (!enough) return false;
    if (trim !== undefined) {
      trimNow(outside);
      return true;
    }
    loading ??= (options.loadTrim ?? loadNativeHeapTrim)().then((loaded) => {
      trim = loaded;
      if (trim !== undefined) trimNow(outsideHeap());
    });
    return false;
  };
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
