import { describe, expect, it } from 'vitest';
import { flushTurn, resetSession, saveSummary } from '../../src/store/index.js';
import { loadSessionSnapshot } from '../../src/store/session-snapshot.js';
import { newSession, turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

describeEachBackend('session snapshot', (database) => {
  it('is nothing for a session never stored', async () => {
    expect(await loadSessionSnapshot(database().db, 'agent:main:telegram:1:dm:nobody', 500)).toBeUndefined();
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

    await resetSession(db, session.key);
    const fresh = await loadSessionSnapshot(db, session.key, 500);
    expect(fresh).toEqual({ sessionId: session.id, summary: undefined, history: [] });
  });
});
