import { abortReasonOf } from '../core/turn-abort.js';
import type { Logger } from '../observability/logger.js';
import { isPermanentStoreError } from '../store/store-errors.js';
import type { TurnRecord } from '../store/turn-record.js';
import type { TurnStore } from './turn-store.js';

export interface FlushRetryOptions {
  /** Give up after this long; the job's own retry (and the delivery record) take over from there. */
  maxWaitMs: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_FLUSH_RETRY: FlushRetryOptions = { maxWaitMs: 30_000, firstDelayMs: 250, maxDelayMs: 4_000 };

/**
 * The flush is idempotent by run id, so it is safe to repeat: a PostgreSQL outage after the reply went out
 * is waited out here rather than turned into a failed turn. A permanent error (bad data) is not retried, and
 * nothing is waited out once the process is stopping (`signal` aborted for shutdown): the turn is handed back.
 */
export async function flushWithRetry(
  store: TurnStore,
  record: TurnRecord,
  logger: Logger,
  options: FlushRetryOptions = DEFAULT_FLUSH_RETRY,
  signal?: AbortSignal,
  historyVersion?: string,
): Promise<{ written: boolean }> {
  const deadline = Date.now() + options.maxWaitMs;
  let delay = options.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.flushTurn(record, { historyVersion });
    } catch (error) {
      if (isPermanentStoreError(error)) {
        logger.warn({ err: error, runId: record.runId, attempt }, 'flush failed for good (the database refuses this data); not retrying');
        throw error;
      }
      if (Date.now() + delay > deadline || stopping(signal)) throw error;
      logger.warn({ err: error, runId: record.runId, attempt, retryInMs: delay }, 'flush failed; retrying');
      await pause(delay, signal);
      delay = Math.min(delay * 2, options.maxDelayMs);
    }
  }
}

const stopping = (signal: AbortSignal | undefined) => signal !== undefined && abortReasonOf(signal) === 'shutdown';

/** Waits `ms`, or less when the process starts stopping meanwhile. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
