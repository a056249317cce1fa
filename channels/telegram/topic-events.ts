import type { ChatMembershipChange } from '../../src/core/index.js';

/** What the channel reads of a service message about a topic (https://core.telegram.org/bots/api#message). */
export interface TopicServiceMessage {
  chat: { id: number; type: string };
  message_thread_id?: number;
  from?: { id: number };
  date?: number;
  forum_topic_closed?: object;
  forum_topic_reopened?: object;
}

/**
 * `forum_topic_closed` / `forum_topic_reopened` in a forum supergroup or a private chat with topics: the topic's
 * scheduled tasks pause or run again, as for a chat the bot left or came back to. Any other message: undefined.
 */
export function topicChangeOf(message: TopicServiceMessage, accountId: string): ChatMembershipChange | undefined {
  const closed = message.forum_topic_closed !== undefined;
  if ((!closed && message.forum_topic_reopened === undefined) || message.message_thread_id === undefined) return undefined;
  const isGroup = message.chat.type === 'group' || message.chat.type === 'supergroup';
  if (!isGroup && message.chat.type !== 'private') return undefined;
  return {
    channel: 'telegram',
    accountId,
    chat: {
      chatId: String(message.chat.id),
      chatType: isGroup ? 'group' : 'dm',
      ...(isGroup ? {} : { userId: String(message.chat.id) }),
      threadId: String(message.message_thread_id),
    },
    change: closed ? 'removed' : 'added',
    reason: closed ? 'topic closed' : 'topic reopened',
    ...(message.from ? { by: String(message.from.id) } : {}),
    at: typeof message.date === 'number' ? message.date * 1000 : Date.now(),
  };
}

/** A send Telegram refused in a topic that is closed or gone: the topic's tasks pause (the answer went to the main chat). */
export function topicRefusedChange(accountId: string, chatId: number | string, threadId: number | string, description: string): ChatMembershipChange {
  const isGroup = Number(chatId) < 0;
  return {
    channel: 'telegram',
    accountId,
    chat: {
      chatId: String(chatId),
      chatType: isGroup ? 'group' : 'dm',
      ...(isGroup ? {} : { userId: String(chatId) }),
      threadId: String(threadId),
    },
    change: 'removed',
    reason: /TOPIC_CLOSED/i.test(description) ? 'topic closed' : 'topic not found',
    at: Date.now(),
  };
}
