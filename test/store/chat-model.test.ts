import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { chatModelOf, chooseChatModel, chooseSessionModel, ensureSession, flushTurn, sessionKeysOfChat, type EnsureSessionInput } from '../../src/store/index.js';
import { loadSessionSnapshot } from '../../src/store/session-snapshot.js';
import { turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

function groupSession(chatId: string, topic?: string): EnsureSessionInput {
  const chatKey = `agent:main:telegram:bot:group:${chatId}`;
  return { key: topic ? `${chatKey}:topic:${topic}` : chatKey, agentId: 'main', channel: 'telegram', accountId: 'bot', chatId, chatType: 'group' };
}

describeEachBackend('the chat’s /model choice', (database) => {
  it('comes in the one snapshot statement of every session of the chat, a session with no row yet too; not of another chat', async () => {
    const db = database().db;
    const chatId = randomUUID();
    const stored = await ensureSession(db, groupSession(chatId, '7'));
    await flushTurn(db, turnRecord(stored));
    await chooseSessionModel(db, groupSession(chatId, '7'), 'openai:gpt-4o');
    await chooseChatModel(db, `agent:main:telegram:bot:group:${chatId}`, 'anthropic:claude-haiku-4-5');

    const topic = await loadSessionSnapshot(db, stored.key, 500);
    expect(topic.chatModel).toBe('anthropic:claude-haiku-4-5');
    expect(topic.session).toMatchObject({ sessionId: stored.id, model: 'openai:gpt-4o' });
    expect(topic.session!.history).toHaveLength(4);
    // a topic never answered in yet: no session row, the chat's choice all the same
    expect(await loadSessionSnapshot(db, groupSession(chatId, '99').key, 500)).toEqual({ session: undefined, chatModel: 'anthropic:claude-haiku-4-5' });
    expect((await loadSessionSnapshot(db, groupSession(chatId).key, 500)).chatModel).toBe('anthropic:claude-haiku-4-5');
    expect((await loadSessionSnapshot(db, groupSession(randomUUID(), '7').key, 500)).chatModel).toBeUndefined();

    await chooseChatModel(db, `agent:main:telegram:bot:group:${chatId}`, 'openai:gpt-4o');
    expect(await chatModelOf(db, `agent:main:telegram:bot:group:${chatId}`)).toBe('openai:gpt-4o');
    await chooseChatModel(db, `agent:main:telegram:bot:group:${chatId}`, null);
    expect(await chatModelOf(db, `agent:main:telegram:bot:group:${chatId}`)).toBeUndefined();
    expect((await loadSessionSnapshot(db, stored.key, 500)).chatModel).toBeUndefined();
  });

  it('lists the stored sessions of one chat: its topics and its own, not another agent’s, chat’s or DM user’s', async () => {
    const db = database().db;
    const chatId = randomUUID();
    for (const topic of ['1', '2', undefined]) await ensureSession(db, groupSession(chatId, topic));
    await ensureSession(db, { ...groupSession(chatId, '3'), key: `agent:other:telegram:bot:group:${chatId}:topic:3`, agentId: 'other' });
    await ensureSession(db, groupSession(randomUUID(), '1'));
    const keys = await sessionKeysOfChat(db, groupSession(chatId, '2'));
    expect(keys.sort()).toEqual([groupSession(chatId).key, groupSession(chatId, '1').key, groupSession(chatId, '2').key].sort());

    // a Slack DM channel is one chat id for the user's sessions with the bot, each DM user's key its own chat
    const dm = (userId: string, thread?: string): EnsureSessionInput => ({
      key: `agent:main:slack:T1:dm:${userId}${thread ? `:thread:${thread}` : ''}`, agentId: 'main', channel: 'slack', accountId: 'T1', chatId: `D-${chatId}`, chatType: 'dm', userId,
    });
    await ensureSession(db, dm('U1', '1.1'));
    await ensureSession(db, dm('U1'));
    await ensureSession(db, dm('U2', '2.2'));
    expect((await sessionKeysOfChat(db, dm('U1', '3.3'))).sort()).toEqual([dm('U1').key, dm('U1', '1.1').key].sort());
  });
});
