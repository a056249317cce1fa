import type { Update } from 'grammy/types';

/** How a double numbers the messages of a chat (see telegram-chats.ts), and learns of the users' messages. */
export interface MessageNumbering {
  allocate(chatId: number): number;
  record(chatId: number, messageId: number): void;
}

/**
 * Builders for the updates Telegram would send: each call gets a fresh update_id and message_id (numbered by
 * `numbering` when given, so a double's bot messages and the users' share the chat's sequence).
 */
export function createUpdateFactory(bot: { id: number; username: string }, numbering?: MessageNumbering) {
  let updateId = 10_000;
  let messageId = 500;
  const nextMessageId = (chatId: number): number => {
    if (!numbering) return ++messageId;
    const id = numbering.allocate(chatId);
    numbering.record(chatId, id);
    return id;
  };
  const user = (userId: number) => ({ id: userId, is_bot: false, first_name: 'User', last_name: String(userId), username: `user${userId}` });
  const group = (chatId: number, title = 'Test group') => ({ id: chatId, type: 'supergroup', title });
  const update = (chat: object, userId: number, text: string, extra: object = {}): Update =>
    ({
      update_id: ++updateId,
      message: { message_id: nextMessageId((chat as { id: number }).id), date: Math.floor(Date.now() / 1000), chat, from: user(userId), text, ...extra },
    }) as Update;
  return {
    privateText: (userId: number, text: string, extra: object = {}) =>
      update({ id: userId, type: 'private', first_name: 'User' }, userId, text, extra),
    groupText: (chatId: number, userId: number, text: string, extra: object = {}) => update(group(chatId), userId, text, extra),
    /** A click on an inline keyboard button of one of the bot's messages (https://core.telegram.org/bots/api#callbackquery). */
    callbackQuery: (chatId: number, userId: number, data: string, messageId = 1): Update =>
      ({
        update_id: ++updateId,
        callback_query: {
          id: `cbq-${updateId}`,
          from: user(userId),
          chat_instance: `ci-${chatId}`,
          data,
          message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: chatId > 0 ? { id: chatId, type: 'private', first_name: 'User' } : group(chatId), text: 'approval' },
        },
      }) as Update,
    /** A message in topic `threadId` of a private chat in threaded mode (Bot API 9.3). */
    privateTopicText: (userId: number, threadId: number, text: string, extra: object = {}) =>
      update({ id: userId, type: 'private', first_name: 'User' }, userId, text, { message_thread_id: threadId, is_topic_message: true, ...extra }),
    /**
     * The service message Telegram sends when a topic is closed or reopened (https://core.telegram.org/bots/api#forumtopicclosed):
     * in a forum supergroup (`chatId` < 0) or a private chat with topics; `forum_topic_closed` / `forum_topic_reopened` are empty objects.
     */
    topicClosed: (chatId: number, threadId: number, userId: number, reopened = false): Update => {
      const chat = chatId > 0 ? { id: chatId, type: 'private', first_name: 'User' } : { id: chatId, type: 'supergroup', title: 'Forum', is_forum: true };
      return {
        update_id: ++updateId,
        message: {
          message_id: nextMessageId(chatId),
          message_thread_id: threadId,
          is_topic_message: true,
          date: Math.floor(Date.now() / 1000),
          chat,
          from: user(userId),
          ...(reopened ? { forum_topic_reopened: {} } : { forum_topic_closed: {} }),
        },
      } as Update;
    },
    /** `@botname text` with the mention entity Telegram adds. */
    mention: (chatId: number, userId: number, text: string) =>
      update(group(chatId), userId, `@${bot.username} ${text}`, { entities: [{ type: 'mention', offset: 0, length: bot.username.length + 1 }] }),
    /** A group message replying to one of the bot's messages. */
    reply: (chatId: number, userId: number, text: string, repliedMessageId = 1) =>
      update(group(chatId), userId, text, {
        reply_to_message: { message_id: repliedMessageId, date: 0, chat: group(chatId), from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username }, text: 'earlier answer' },
      }),
    /** `/command@target args` with its bot_command entity; target defaults to no suffix. */
    command: (chatId: number, userId: number, command: string, options: { target?: string; args?: string } = {}) => {
      const head = `/${command}${options.target ? `@${options.target}` : ''}`;
      const chat = chatId > 0 ? { id: chatId, type: 'private', first_name: 'User' } : group(chatId);
      return update(chat, userId, options.args ? `${head} ${options.args}` : head, { entities: [{ type: 'bot_command', offset: 0, length: head.length }] });
    },
  };
}
