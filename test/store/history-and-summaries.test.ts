import { expect, it } from 'vitest';
import { findSession, flushTurn, latestSummary, loadHistory, saveSummary, sessionStats } from '../../src/store/index.js';
import { newSession, turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

describeEachBackend('history, summaries and stats', (database) => {
  it('loadHistory returns the last n messages in order', async () => {
    const { db } = database();
    const session = await newSession(db);
    for (let turn = 0; turn < 3; turn += 1) await flushTurn(db, turnRecord(session));

    expect((await loadHistory(db, session.id, { limit: 5 })).map((message) => message.seq)).toEqual([7, 8, 9, 10, 11]);
    expect((await loadHistory(db, session.id, { limit: 50 })).map((message) => message.seq)).toHaveLength(12);
    expect(await loadHistory(db, session.id, { limit: 0 })).toEqual([]);
  });

  it('loadHistory starts at fromSeq, but never before the history start', async () => {
    const { db } = database();
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    await flushTurn(db, turnRecord(session));

    expect((await loadHistory(db, session.id, { fromSeq: 6 })).map((message) => message.seq)).toEqual([6, 7]);
    expect((await loadHistory(db, session.id, { fromSeq: 2, limit: 3 })).map((message) => message.seq)).toEqual([5, 6, 7]);

    // the first turn after /new moves the history start to its first message
    await flushTurn(db, turnRecord(session, { conversation: 1 }));
    expect((await loadHistory(db, session.id, { fromSeq: 2 })).map((message) => message.seq)).toEqual([8, 9, 10, 11]);
    // a turn of the old conversation stored after it is not the current conversation's
    await flushTurn(db, turnRecord(session, { conversation: 0 }));
    expect((await loadHistory(db, session.id)).map((message) => message.seq)).toEqual([8, 9, 10, 11]);
  });

  it('loadHistory of a session without messages is empty', async () => {
    const { db } = database();
    const session = await newSession(db);
    expect(await loadHistory(db, session.id)).toEqual([]);
  });

  it('saves summaries, counts compactions, and keeps every message', async () => {
    const { db } = database();
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    await flushTurn(db, turnRecord(session));
    expect(await latestSummary(db, session.id)).toBeUndefined();

    await saveSummary(db, session.id, 'They asked the time.', 3);
    const saved = await saveSummary(db, session.id, 'They asked the time twice.', 5);

    expect(saved).toMatchObject({ sessionId: session.id, summary: 'They asked the time twice.', coversUpToSeq: 5 });
    expect(await latestSummary(db, session.id)).toMatchObject({ id: saved.id, coversUpToSeq: 5 });
    expect(await findSession(db, session.key)).toMatchObject({ compactionCount: 2 });
    expect(await loadHistory(db, session.id)).toHaveLength(8);
    const summary = await latestSummary(db, session.id);
    expect((await loadHistory(db, session.id, { fromSeq: summary!.coversUpToSeq + 1 })).map((message) => message.seq)).toEqual([6, 7]);
  });

  it('a summary from before /new no longer counts', async () => {
    const { db } = database();
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    await saveSummary(db, session.id, 'Old conversation.', 3);

    await flushTurn(db, turnRecord(session, { conversation: 1 }));
    expect(await latestSummary(db, session.id)).toBeUndefined();
    // nor one of the old conversation that lands after it
    await saveSummary(db, session.id, 'Late old summary.', 5, 0);
    expect(await latestSummary(db, session.id)).toBeUndefined();
    await saveSummary(db, session.id, 'New conversation.', 5, 1);
    expect(await latestSummary(db, session.id)).toMatchObject({ summary: 'New conversation.' });
  });

  it('sessionStats counts the current conversation', async () => {
    const { db } = database();
    const session = await newSession(db);
    const first = turnRecord(session);
    const second = turnRecord(session);
    await flushTurn(db, first);
    await flushTurn(db, second);

    const stats = await sessionStats(db, session.key);
    expect(stats).toMatchObject({ messageCount: 8, inputTokens: 300, outputTokens: 60, lastModel: 'gpt-test', compactionCount: 0 });
    expect(stats!.costUsd).toBeCloseTo(0.003, 10);
    // what a turn would load: every message of both turns, in order (their tokens are counted by the caller)
    expect(stats!.context.messages).toEqual([...first.messages, ...second.messages].map(({ role, parts }) => ({ role, parts })));
    expect(stats!.context.summary).toBeUndefined();

    await saveSummary(db, session.id, 'x'.repeat(400), 7);
    const summarized = await sessionStats(db, session.key);
    expect(summarized).toMatchObject({ messageCount: 8, compactionCount: 1, context: { summary: 'x'.repeat(400), messages: [] } });

    // /new counted by the queue, nothing of the new conversation stored yet
    expect(await sessionStats(db, session.key, 1)).toMatchObject({ messageCount: 0, context: { messages: [] }, inputTokens: 300 });
    expect(await sessionStats(db, session.key, 0)).toMatchObject({ messageCount: 8 });
    await flushTurn(db, turnRecord(session, { conversation: 1 }));
    expect(await sessionStats(db, session.key, 1)).toMatchObject({ messageCount: 4, context: { summary: undefined } });
  });

  it('sessionStats of an unknown key is undefined', async () => {
    const { db } = database();
    expect(await sessionStats(db, 'agent:main:slack:team:dm:nobody')).toBeUndefined();
  });
});
