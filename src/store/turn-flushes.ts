import type { StoreDatabase } from './database.js';
import { flushTurn, flushTurns } from './turn-repository.js';
import type { TurnRecord } from './turn-record.js';

export interface TurnFlushesOptions {
  /** Flush statements on their way at once; the turns that finish meanwhile wait and go together in the next. */
  maxInFlight: number;
  /** Turns in one statement at most. */
  maxBatch: number;
  /**
   * A statement leaves at most this often (ms; 0 or none: as soon as a slot is free): the turns that finish sooner
   * after the last one wait for the rest of the interval and go together.
   */
  spacingMs?: number;
}

export const TURN_FLUSHES: TurnFlushesOptions = { maxInFlight: 2, maxBatch: 32, spacingMs: 10 };

interface Waiting {
  record: TurnRecord;
  settle(outcome: { written: boolean } | { error: unknown }): void;
}

/**
 * The turn flushes of one process, grouped: a turn that finishes while `maxInFlight` flush statements are on
 * their way waits for one of them to come back and then goes with every other turn that waited, in one statement
 * (one round trip, one commit; store/flush-turn-statement.ts). A turn that finishes when fewer are on their way
 * goes at once, alone, unless another statement left less than `spacingMs` ago: it then waits for the rest of that
 * interval, with the turns that finish meanwhile. So a quiet process writes each turn at once, and one finishing
 * turns steadily (hundreds a second, each far from the next, too far for the in-flight rule to group them) writes
 * them a few at a time; a socket write, a wake-up of a PostgreSQL backend and a commit serve several turns instead
 * of one each. A turn's answer is out before its flush: the wait only holds back its session's next turn.
 *
 * A statement that fails (one turn's data the database refuses, or a deadlock with another process's flush) does
 * not fail the turns it carried: each is flushed again on its own, and only its own outcome reaches it.
 */
export class TurnFlushes {
  readonly #waiting: Waiting[] = [];
  #inFlight = 0;
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #spacingTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: StoreDatabase,
    private readonly options: TurnFlushesOptions = TURN_FLUSHES,
  ) {}

  /** Stores a finished turn as `flushTurn` does: `written` is false when its run id was stored already. */
  flush(record: TurnRecord): Promise<{ written: boolean }> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ record, settle: (outcome) => ('error' in outcome ? reject(outcome.error) : resolve(outcome)) });
      this.#sendWhatWaits();
    });
  }

  #sendWhatWaits(): void {
    while (this.#inFlight < this.options.maxInFlight && this.#waiting.length > 0) {
      const wait = this.#lastSentAt + (this.options.spacingMs ?? 0) - performance.now();
      if (wait > 0) {
        this.#spacingTimer ??= setTimeout(() => {
          this.#spacingTimer = undefined;
          this.#sendWhatWaits();
        }, wait);
        return;
      }
      const batch = this.#take();
      this.#inFlight++;
      this.#lastSentAt = performance.now();
      void this.#send(batch).finally(() => {
        this.#inFlight--;
        this.#sendWhatWaits();
      });
    }
  }

  /** The longest-waiting turns, one per session: one statement cannot claim two ranges of a session's sequence. */
  #take(): Waiting[] {
    const batch: Waiting[] = [];
    const sessions = new Set<string>();
    const left: Waiting[] = [];
    for (const waiting of this.#waiting) {
      if (batch.length < this.options.maxBatch && !sessions.has(waiting.record.sessionId)) {
        batch.push(waiting);
        sessions.add(waiting.record.sessionId);
      } else {
        left.push(waiting);
      }
    }
    this.#waiting.splice(0, this.#waiting.length, ...left);
    return batch;
  }

  async #send(batch: Waiting[]): Promise<void> {
    try {
      const written = await flushTurns(this.db, batch.map((waiting) => waiting.record));
      for (const waiting of batch) waiting.settle({ written: written.has(waiting.record.runId) });
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.settle({ error });
        return;
      }
      await Promise.all(
        batch.map(async (waiting) => {
          try {
            waiting.settle(await flushTurn(this.db, waiting.record));
          } catch (alone) {
            waiting.settle({ error: alone });
          }
        }),
      );
    }
  }
}
