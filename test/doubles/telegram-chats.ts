/**
 * The Telegram double's chats: the messages the bot sent (text, photos, documents, inline keyboards) and the
 * users' messages it was told about, numbered as Telegram numbers them: every private chat of a bot shares the
 * bot's one message counter (incoming and outgoing alike), a group has a counter of its own
 * (https://core.telegram.org/api/updates#message-related-event-sequences: `message_id` is unique per chat only).
 */

/** A message the bot sent, as the chat shows it now. */
export interface TelegramStoredMessage {
  chatId: number | string;
  messageId: number;
  threadId?: number;
  /** What the reader sees (entities parsed); a file's caption ('' without one). */
  text: string;
  /** The text as last sent or edited, and its parse mode. */
  raw: string;
  parseMode: string | undefined;
  edits: number;
  deleted: boolean;
  /** The inline keyboard the message carries (approval requests), as last sent or edited. */
  replyMarkup?: unknown;
  /** A photo or a document (sendPhoto / sendDocument), with its file name. */
  file?: { kind: 'photo' | 'document'; fileName: string };
}

type Failure = { status: number; description: string };

export const NOT_MODIFIED = 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

export function createTelegramChats(bot: { id: number; username: string }) {
  /** Every message the bot sent, by `${chat_id}:${message_id}`. */
  const messages = new Map<string, TelegramStoredMessage>();
  /** The same messages by chat, oldest first: a long soak asks for one chat's many times a second. */
  const byChat = new Map<string, TelegramStoredMessage[]>();
  /** Users' messages (by `${chat_id}:${message_id}`): the bot may not edit them. */
  const userMessages = new Set<string>();
  const groupCounters = new Map<string, number>();
  let privateCounter = 0;

  const keyOf = (chatId: unknown, messageId: unknown) => `${String(chatId)}:${String(messageId)}`;

  function allocate(chatId: number | string): number {
    if (Number(chatId) > 0) return ++privateCounter;
    const next = (groupCounters.get(String(chatId)) ?? 0) + 1;
    groupCounters.set(String(chatId), next);
    return next;
  }

  /** The Message object the Bot API returns for one of the bot's messages. */
  function asMessage(stored: TelegramStoredMessage): Record<string, unknown> & { message_id: number } {
    const chatId = Number(stored.chatId);
    return {
      message_id: stored.messageId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: stored.chatId, type: chatId < 0 ? 'supergroup' : 'private' },
      from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
      ...(stored.file === undefined ? { text: stored.text } : stored.text ? { caption: stored.text } : {}),
      ...(stored.file?.kind === 'photo' ? { photo: [{ file_id: `photo-${stored.messageId}`, file_unique_id: `p${stored.messageId}`, width: 1, height: 1 }] } : {}),
      ...(stored.file?.kind === 'document' ? { document: { file_id: `doc-${stored.messageId}`, file_unique_id: `d${stored.messageId}`, file_name: stored.file.fileName } } : {}),
      ...(stored.threadId !== undefined ? { message_thread_id: stored.threadId, is_topic_message: true } : {}),
      ...(hasKeyboard(stored.replyMarkup) ? { reply_markup: stored.replyMarkup } : {}),
    };
  }

  /** A bot message of this chat, or why an edit of that id fails (Telegram's descriptions). */
  function editable(chatId: unknown, messageId: unknown): TelegramStoredMessage | Failure {
    const stored = messages.get(keyOf(chatId, messageId));
    if (stored !== undefined && !stored.deleted) return stored;
    if (userMessages.has(keyOf(chatId, messageId))) return { status: 400, description: "Bad Request: message can't be edited" };
    return { status: 400, description: 'Bad Request: message to edit not found' };
  }

  return {
    messages,
    allocate,
    asMessage,
    /** A user's message in a chat (the update factory numbers and records every message it builds). */
    recordUserMessage(chatId: number | string, messageId: number): void {
      userMessages.add(keyOf(chatId, messageId));
    },
    /** A new message of the bot: numbered in its chat and stored. */
    send(params: Record<string, unknown>, text: string, file?: TelegramStoredMessage['file']): TelegramStoredMessage {
      const chatId = params.chat_id as number | string;
      const stored: TelegramStoredMessage = {
        chatId,
        messageId: allocate(chatId),
        ...(params.message_thread_id !== undefined ? { threadId: Number(params.message_thread_id) } : {}),
        text,
        raw: typeof params.text === 'string' ? params.text : text,
        parseMode: typeof params.parse_mode === 'string' ? params.parse_mode : undefined,
        edits: 0,
        deleted: false,
        ...(params.reply_markup !== undefined ? { replyMarkup: params.reply_markup } : {}),
        ...(file ? { file } : {}),
      };
      messages.set(keyOf(chatId, stored.messageId), stored);
      const chat = byChat.get(String(chatId)) ?? [];
      chat.push(stored);
      byChat.set(String(chatId), chat);
      return stored;
    },
    editable,
    /**
     * `editMessageText`: "not modified" when text, parse mode and keyboard are what the message has already;
     * a keyboard not given is taken off (as the Bot API does).
     */
    editText(stored: TelegramStoredMessage, params: Record<string, unknown>, text: string): Failure | undefined {
      const parseMode = typeof params.parse_mode === 'string' ? params.parse_mode : undefined;
      const markup = keyboardOrNone(params.reply_markup);
      if (stored.file !== undefined) return { status: 400, description: 'Bad Request: there is no text in the message to edit' };
      if (stored.raw === params.text && stored.parseMode === parseMode && sameKeyboard(stored.replyMarkup, markup)) return { status: 400, description: NOT_MODIFIED };
      Object.assign(stored, { text, raw: String(params.text), parseMode, edits: stored.edits + 1, replyMarkup: markup });
      return undefined;
    },
    /** `editMessageReplyMarkup`: no `reply_markup` (or an empty keyboard) takes the keyboard off. */
    editMarkup(stored: TelegramStoredMessage, params: Record<string, unknown>): Failure | undefined {
      const markup = keyboardOrNone(params.reply_markup);
      if (sameKeyboard(stored.replyMarkup, markup)) return { status: 400, description: NOT_MODIFIED };
      stored.replyMarkup = markup;
      stored.edits += 1;
      return undefined;
    },
    /** The messages a reader of the chat sees now (not deleted), oldest first. */
    visible: (chatId: number | string) => (byChat.get(String(chatId)) ?? []).filter((message) => !message.deleted).sort((a, b) => a.messageId - b.messageId),
  };
}

function hasKeyboard(markup: unknown): boolean {
  const rows = (markup as { inline_keyboard?: unknown[] } | undefined)?.inline_keyboard;
  return Array.isArray(rows) && rows.length > 0;
}

function keyboardOrNone(markup: unknown): unknown {
  return hasKeyboard(markup) ? markup : undefined;
}

function sameKeyboard(a: unknown, b: unknown): boolean {
  return JSON.stringify(keyboardOrNone(a) ?? null) === JSON.stringify(keyboardOrNone(b) ?? null);
}
