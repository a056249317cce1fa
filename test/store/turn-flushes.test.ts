import { randomUUID } from 'node:crypto';
import { inArray, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { findSession, flushTurns, loadHistory, runs, TurnFlushes, type SessionRow } from '../../src/store/index.js';
import { newSession, turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

describeEachBackend('turn flushes', (database) => {
  /** Rows inserted by one transaction share its xmin: how many statements stored these runs. */
  async function transactionsThatWrote(runIds: string[]): Promise<number> {
    const rows = await database().db.select({ xmin: sql<string>`xmin::text` }).from(runs).where(inArray(runs.id, runIds));
    expect(rows).toHaveLength(runIds.length);
    return new Set(rows.map((row) => row.xmin)).size;
  }

  it('stores turns of several sessions in one statement, each numbered on from its own session', async () => {
    const { db } = database();
    const sessions = await Promise.all([newSession(db), newSession(db, 'group'), newSession(db)]);
    const earlier = turnRecord(sessions[1]!);
    await flushTurns(db, [earlier]);
    const records = sessions.map((session) => turnRecord(session, { chatTitle: session.chatType === 'group' ? 'Tea club' : undefined }));

    const written = await flushTurns(db, records);

    expect([...written].sort()).toEqual(records.map((record) => record.runId).sort());
    expect(await transactionsThatWrote(records.map((record) => record.runId))).toBe(1);
    for (const [index, session] of sessions.entries()) {
      const history = await loadHistory(db, session.id);
      expect(history.map((message) => message.seq)).toEqual(index === 1 ? [0, 1, 2, 3, 4, 5, 6, 7] : [0, 1, 2, 3]);
      expect(history.slice(-4).every((message) => message.runId === records[index]!.runId)).toBe(true);
      expect(await findSession(db, session.key)).toMatchObject({ nextSeq: history.length, inputTokens: 150 * (index === 1 ? 2 : 1) });
    }
    expect((await findSession(db, sessions[1]!.key))!.title).toBe('Tea club');
  });

  it('writes nothing again for runs already stored, and the rest of the statement still', async () => {
    const { db } = database();
    const [first, second] = await Promise.all([newSession(db), newSession(db)]);
    const stored = turnRecord(first!);
    await flushTurns(db, [stored]);
    const fresh = turnRecord(second!);

    expect(await flushTurns(db, [stored, fresh])).toEqual(new Set([fresh.runId]));
    expect((await loadHistory(db, first!.id)).map((message) => message.seq)).toEqual([0, 1, 2, 3]);
    expect((await loadHistory(db, second!.id)).map((message) => message.seq)).toEqual([0, 1, 2, 3]);
  });

  it('sends the turns that finish while a flush is on its way together, in the next statement', async () => {
    const { db } = database();
    const flushes = new TurnFlushes(db, { maxInFlight: 1, maxBatch: 32 });
    const sessions = await Promise.all(Array.from({ length: 8 }, () => newSession(db)));
    const records = sessions.map((session) => turnRecord(session));

    const outcomes = await Promise.all(records.map((record) => flushes.flush(record)));

    expect(outcomes).toEqual(records.map(() => ({ written: true })));
    // the first went at once, alone; the seven that came while it was on its way went together
    expect(await transactionsThatWrote(records.map((record) => record.runId))).toBe(2);
  });

  it('holds a turn that finishes soon after a statement left until the spacing is over, with the others that finish meanwhile', async () => {
    const { db } = database();
    const flushes = new TurnFlushes(db, { maxInFlight: 2, maxBatch: 32, spacingMs: 300 });
    const sessions = await Promise.all(Array.from({ length: 4 }, () => newSession(db)));
    const [first, second, third, later] = sessions.map((session) => turnRecord(session));

    await flushes.flush(first!);
    // a slot is free, but a statement left just now: these two wait and go together
    const waited = performance.now();
    await Promise.all([flushes.flush(second!), flushes.flush(third!)]);
    expect(performance.now() - waited).toBeGreaterThanOrEqual(200);
    expect(await transactionsThatWrote([second!.runId, third!.runId])).toBe(1);
    expect(await transactionsThatWrote([first!.runId, second!.runId])).toBe(2);
    // after a quiet stretch longer than the spacing, a turn goes at once
    await new Promise((resolve) => setTimeout(resolve, 350));
    const alone = performance.now();
    await flushes.flush(later!);
    expect(performance.now() - alone).toBeLessThan(200);
  });

  it('never puts two turns of one session in one statement', async () => {
    const { db } = database();
    const flushes = new TurnFlushes(db, { maxInFlight: 1, maxBatch: 32 });
    const [busy, other] = await Promise.all([newSession(db), newSession(db)]);
    const records = [turnRecord(other!), turnRecord(busy!), turnRecord(busy!), turnRecord(busy!)];

    expect(await Promise.all(records.map((record) => flushes.flush(record)))).toEqual(records.map(() => ({ written: true })));

    const history = await loadHistory(db, busy!.id);
    expect(history.map((message) => message.seq)).toEqual(Array.from({ length: 12 }, (_, seq) => seq));
    // each turn's four messages are contiguous
    expect(history.map((message) => message.runId)).toEqual(records.slice(1).flatMap((record) => Array(4).fill(record.runId)));
  });

  it('fails only the turn whose data the database refuses; the others of its statement are stored', async () => {
    const { db } = database();
    const flushes = new TurnFlushes(db, { maxInFlight: 1, maxBatch: 32 });
    const sessions = await Promise.all([newSession(db), newSession(db), newSession(db)]);
    const first = turnRecord(sessions[0]!);
    const orphan = turnRecord({ ...sessions[1]!, id: randomUUID() } as SessionRow);
    const good = turnRecord(sessions[2]!);

    const [firstOutcome, orphanOutcome, goodOutcome] = await Promise.allSettled([flushes.flush(first), flushes.flush(orphan), flushes.flush(good)]);

    expect(firstOutcome).toEqual({ status: 'fulfilled', value: { written: true } });
    expect(orphanOutcome.status).toBe('rejected');
    expect(goodOutcome).toEqual({ status: 'fulfilled', value: { written: true } });
    expect(await db.select({ id: runs.id }).from(runs).where(inArray(runs.id, [orphan.runId]))).toEqual([]);
    expect((await loadHistory(db, sessions[2]!.id)).map((message) => message.seq)).toEqual([0, 1, 2, 3]);
  });
});
