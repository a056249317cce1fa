import { asc, eq } from 'drizzle-orm';
import { runStatement, type StoreDatabase } from './database.js';
import { flushTurnsStatement } from './flush-turn-statement.js';
import { runs, runSpans, type RunRow, type RunSpanRow } from './schema/index.js';
import type { TurnRecord } from './turn-record.js';

/**
 * Stores a finished turn: its messages (numbered on from the session's `next_seq`), the run and its
 * spans, and the session's totals, all or nothing, in one round trip. A run id that is already
 * stored writes nothing and returns `{ written: false }`.
 */
export async function flushTurn(db: StoreDatabase, record: TurnRecord): Promise<{ written: boolean }> {
  return { written: (await flushTurns(db, [record])).has(record.runId) };
}

/** Several turns of different sessions as `flushTurn` stores one, in one statement: the ids of the runs written. */
export async function flushTurns(db: StoreDatabase, records: readonly TurnRecord[]): Promise<Set<string>> {
  const { text, params } = flushTurnsStatement(records);
  const rows = await runStatement<{ id: string }>(db, text, params);
  return new Set(rows.map((row) => row.id));
}

export async function findRun(db: StoreDatabase, runId: string): Promise<RunRow | undefined> {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  return run;
}

export async function runSpansOf(db: StoreDatabase, runId: string): Promise<RunSpanRow[]> {
  return db.select().from(runSpans).where(eq(runSpans.runId, runId)).orderBy(asc(runSpans.position));
}
