import type { StoreDatabase } from './database.js';
import { flushTurn, flushTurns } from './turn-repository.js';
import type { TurnRecord } from './turn-record.js';

export interface TurnFlushesOptions {
  /** Flush statements on their way at once; the turns that finish meanwhile wait and go together in the next. */
  maxInFlight: number;
  /** Turns in one statement at most. */
  maxBatch: number;
}

export const TURN_FLUSHES: TurnFlushesOptions = { maxInFlight: 2, maxBatch: 32 };

interface Waiting {
  record: TurnRecord;
  settle(outcome: { written: boolean } | { error: unknown }): void;
}

/**
 * The turn flushes of one process, grouped: a turn that finishes while `maxInFlight` flush statements are on
 * their way waits for one of them to come back and then goes with every other turn that waited, in one statement
 * (one round trip, one commit; store/flush-turn-statement.ts). A turn that finishes when fewer are on their way
 * goes at once, alone, so grouping costs a quiet process nothing. Under load, a socket write, a wake-up of a
 * PostgreSQL backend and a commit serve several turns instead of one each.
 *
 * A statement that fails (one turn's data the database refuses, or a deadlock with another process's flush) does
 * not fail the turns it carried: each is flushed again on its own, and only its own outcome reaches it.
 */
export class TurnFlushes {
  readonly #waiting: Waiting[] = [];
  #inFlight = 0;

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
      const batch = this.#take();
      this.#inFlight++;
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
