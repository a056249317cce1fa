import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { chooseSessionModel, findSession, flushTurn, sessionModelOf } from '../../src/store/index.js';
import { loadSessionSnapshot } from '../../src/store/session-snapshot.js';
import { newSession, turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

describeEachBackend('the session’s /model choice', (database) => {
  it('creates the session’s row when the choice comes first; a turn’s snapshot carries it; null goes back to the agent’s model', async () => {
    const db = database().db;
    const chatId = randomUUID();
    const key = `agent:main:slack:T1:dm:${chatId}`;
    expect(await sessionModelOf(db, key)).toBeUndefined();
    await chooseSessionModel(db, { key, agentId: 'main', channel: 'slack', accountId: 'T1', chatId, chatType: 'dm', userId: chatId }, 'openai:gpt-4o');
    expect(await findSession(db, key)).toMatchObject({ agentId: 'main', channel: 'slack', chatType: 'dm', userId: chatId, model: 'openai:gpt-4o', nextSeq: 0 });
    expect(await sessionModelOf(db, key)).toBe('openai:gpt-4o');
    expect((await loadSessionSnapshot(db, key, 500)).session).toMatchObject({ model: 'openai:gpt-4o', history: [] });

    await chooseSessionModel(db, { key, agentId: 'main', channel: 'slack', accountId: 'T1', chatId, chatType: 'dm' }, null);
    expect(await sessionModelOf(db, key)).toBeUndefined();
    expect((await loadSessionSnapshot(db, key, 500)).session!.model).toBeUndefined();
  });

  it('changes only the choice of a session with turns stored', async () => {
    const db = database().db;
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    const before = (await findSession(db, session.key))!;
    await chooseSessionModel(db, { key: session.key, agentId: 'main', channel: 'telegram', accountId: 'bot', chatId: session.chatId, chatType: 'dm', title: 'ignored' }, 'anthropic:claude-haiku-4-5');
    const after = (await findSession(db, session.key))!;
    expect(after).toMatchObject({ id: before.id, nextSeq: before.nextSeq, title: before.title, inputTokens: before.inputTokens, model: 'anthropic:claude-haiku-4-5' });
    const snapshot = (await loadSessionSnapshot(db, session.key, 500)).session!;
    expect(snapshot.model).toBe('anthropic:claude-haiku-4-5');
    expect(snapshot.history).toHaveLength(4);
  });
});
