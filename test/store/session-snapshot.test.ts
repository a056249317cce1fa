import { describe, expect, it } from 'vitest';
import { flushTurn, saveSummary } from '../../src/store/index.js';
import { loadSessionSnapshot as loadSessionStart } from '../../src/store/session-snapshot.js';
import type { StoreDatabase } from '../../src/store/index.js';
import { newSession, turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

/** The session part of the statement's answer. */
const loadSessionSnapshot = async (db: StoreDatabase, key: string, limit: number, conversation?: number) => (await loadSessionStart(db, key, limit, conversation)).session;

describeEachBackend('session snapshot', (database) => {
  it('is nothing for a session never stored', async () => {
    expect(await loadSessionStart(database().db, 'agent:main:telegram:1:dm:nobody', 500)).toEqual({ session: undefined, chatModel: undefined });
  });

  it('is the session, its newest summary since /new and the newest messages after it, oldest first, in one read', async () => {
    const db = database().db;
    const session = await newSession(db);
    for (let turn = 0; turn < 3; turn += 1) await flushTurn(db, turnRecord(session));
    const whole = await loadSessionSnapshot(db, session.key, 500);
    expect(whole).toMatchObject({ sessionId: session.id, summary: undefined });
    expect(whole!.history.map((message) => message.seq)).toEqual(Array.from({ length: 12 }, (_, seq) => seq));
    expect(whole!.history[0]).toMatchObject({ role: 'user', omittedFromContext: false });
    expect(whole!.history[0]!.createdAt).toBeInstanceOf(Date);

    await saveSummary(db, session.id, 'they talked about tea', 7);
    const summarized = await loadSessionSnapshot(db, session.key, 500);
    expect(summarized!.summary).toBe('they talked about tea');
    expect(summarized!.history.map((message) => message.seq)).toEqual([8, 9, 10, 11]);
    expect((await loadSessionSnapshot(db, session.key, 1))!.history.map((message) => message.seq)).toEqual([11]);

    // a turn after /new (conversation 1) has nothing of the old one before anything of the new one is stored
    expect(await loadSessionSnapshot(db, session.key, 500, 1)).toEqual({ sessionId: session.id, conversation: 1, summary: undefined, history: [] });
    expect((await loadSessionSnapshot(db, session.key, 500, 0))!.summary).toBe('they talked about tea');
  });

  it('is the turn’s conversation only, whatever order the turns of two conversations are stored in', async () => {
    const db = database().db;
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    await saveSummary(db, session.id, 'the old conversation', 1, 0);
    // the first turn after /new is stored, then a turn that ran across /new (the old conversation) lands late
    await flushTurn(db, turnRecord(session, { conversation: 1 }));
    await flushTurn(db, turnRecord(session, { conversation: 0 }));
    // a summary of the old conversation that lands after /new
    await saveSummary(db, session.id, 'late old summary', 11, 0);

    const fresh = await loadSessionSnapshot(db, session.key, 500, 1);
    expect(fresh).toMatchObject({ conversation: 1, summary: undefined });
    expect(fresh!.history.map((message) => message.seq)).toEqual([4, 5, 6, 7]);
    // a turn with no conversation of its own (the queue had none) takes the stored session's: the newest stored
    const stored = await loadSessionSnapshot(db, session.key, 500);
    expect(stored).toMatchObject({ conversation: 1, summary: undefined });
    expect(stored!.history.map((message) => message.seq)).toEqual([4, 5, 6, 7]);
  });
});
