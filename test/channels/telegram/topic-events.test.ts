import { describe, expect, it } from 'vitest';
import { createUpdateHandler } from '../../../channels/telegram/update-handler.js';
import { topicNameFrom } from '../../../channels/telegram/topic-naming.js';
import type { ChatMembershipChange } from '../../../src/core/index.js';
import { createUpdateFactory } from '../../doubles/telegram-updates.js';
import { recordingSink, silentLogger } from './channel-fixture.js';

const bot = { id: 123456789, username: 'TestDoubleBot' };
const identity = { botId: bot.id, botUsername: bot.username, agentId: 'main' };

function handlerWithChanges() {
  const changes: ChatMembershipChange[] = [];
  const { sink, received } = recordingSink();
  const handle = createUpdateHandler(identity, sink, silentLogger, undefined, async (change) => {
    changes.push(change);
    return { kind: 'recorded' };
  });
  return { handle, changes, received };
}

describe('Telegram topic service messages', () => {
  it('forum_topic_closed / forum_topic_reopened in a forum are the topic leaving and coming back', async () => {
    const { handle, changes, received } = handlerWithChanges();
    const updates = createUpdateFactory(bot);
    await handle(updates.topicClosed(-100900, 42, 77));
    await handle(updates.topicClosed(-100900, 42, 77, true));
    expect(changes).toMatchObject([
      { channel: 'telegram', accountId: String(bot.id), chat: { chatId: '-100900', chatType: 'group', threadId: '42' }, change: 'removed', reason: 'topic closed', by: '77' },
      { chat: { chatId: '-100900', chatType: 'group', threadId: '42' }, change: 'added', reason: 'topic reopened' },
    ]);
    expect(received).toEqual([]);
  });

  it('in a private chat with topics, names the user and the topic', async () => {
    const { handle, changes } = handlerWithChanges();
    await handle(createUpdateFactory(bot).topicClosed(5150, 7, 5150));
    expect(changes).toMatchObject([{ chat: { chatId: '5150', chatType: 'dm', userId: '5150', threadId: '7' }, change: 'removed' }]);
  });

  it('a membership sink that could not record the change asks Telegram to deliver it again', async () => {
    const { sink } = recordingSink();
    const handle = createUpdateHandler(identity, sink, silentLogger, undefined, async () => ({ kind: 'rejected', reason: 'database down' }));
    expect(await handle(createUpdateFactory(bot).topicClosed(-100900, 42, 77))).toEqual({ kind: 'rejected', reason: 'database down' });
  });

  it('a message in a private-chat topic is that topic’s message', async () => {
    const { handle, received } = handlerWithChanges();
    await handle(createUpdateFactory(bot).privateTopicText(5150, 7, 'hello in a topic'));
    expect(received).toMatchObject([{ conversation: { chatId: '5150', chatType: 'dm', threadId: '7' }, threadKind: 'topic', text: 'hello in a topic' }]);
  });
});

describe('topic names from a first message', () => {
  it('takes the first line, collapsed and clipped; none for a command or a message without words', () => {
    expect(topicNameFrom('  Plan the   trip \nwith details')).toBe('Plan the trip');
    expect(topicNameFrom('x'.repeat(100))).toBe(`${'x'.repeat(63)}…`);
    expect(topicNameFrom('/status')).toBeUndefined();
    expect(topicNameFrom('   ')).toBeUndefined();
  });
});
