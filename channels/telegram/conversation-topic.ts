import type { Api } from 'grammy';
import type { ConversationRef } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { targetOf } from './conversation-target.js';

const TOPIC_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

/** "New conversation · 7 Dec, 16:05" in the service's time zone (a topic name is 1–128 characters). */
export function newTopicName(at: number): string {
  return `New conversation · ${TOPIC_DATE.format(at)}`;
}

/**
 * `/new` in a private chat in threaded mode (Bot API 9.3: getMe's `has_topics_enabled`) with
 * TELEGRAM_NEW_CONVERSATION_TOPIC on: a new topic (`createForumTopic` in the private chat) holds the fresh
 * conversation. Anywhere else, or when Telegram refuses (the user's settings, a Bot API roll-out: seen as
 * BOT_FORUM_CREATE_FORBIDDEN), undefined: `/new` clears the current topic as before.
 */
export async function openConversationTopic(
  api: Api,
  from: ConversationRef,
  logger: Logger,
  /** Learns of the topic opened (it is renamed after its first message: topic-naming.ts). */
  onOpened?: (chatId: string, threadId: string) => Promise<void>,
  clock: () => number = Date.now,
): Promise<{ conversation: ConversationRef; title: string } | undefined> {
  if (from.chatType !== 'dm') return undefined;
  const name = newTopicName(clock());
  try {
    const topic = await api.createForumTopic(targetOf(from).chat_id, name);
    logger.info({ chatId: from.chatId, threadId: topic.message_thread_id }, 'opened a topic for a fresh conversation');
    await onOpened?.(from.chatId, String(topic.message_thread_id)).catch((error: unknown) => logger.warn({ err: error, chatId: from.chatId }, 'the new topic will keep its date as its name'));
    const { threadId: _previous, ...chat } = from;
    return { conversation: { ...chat, threadId: String(topic.message_thread_id), messageId: String(topic.message_thread_id) }, title: topic.name };
  } catch (error) {
    logger.warn({ chatId: from.chatId, error: error instanceof Error ? error.message : String(error) }, 'telegram would not open a topic for /new; clearing the current conversation instead');
    return undefined;
  }
}
