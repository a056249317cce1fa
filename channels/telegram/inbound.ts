import type { Message, MessageEntity, Update } from 'grammy/types';
import type { InboundMessage } from '../../src/core/index.js';
import { attachmentsOf } from './attachments.js';

export interface BotIdentity {
  botId: number;
  /** Without the leading `@`. */
  botUsername: string;
  agentId: string;
}

const COMMAND_PATTERN = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]+))?(?=\s|$)/;

/**
 * One Telegram update → the message the rest of the service sees, or undefined for updates the bot
 * does not answer (edits, channel posts, service messages, stickers and other messages with neither words nor files, other bots, and
 * commands addressed to another bot in a group).
 */
export function normalizeUpdate(update: Update, identity: BotIdentity): InboundMessage | undefined {
  const message = update.message;
  if (message === undefined || message.from === undefined || message.from.is_bot) return undefined;
  const attachments = attachmentsOf(message);
  const rawText = message.text ?? message.caption ?? '';
  if (rawText.trim() === '' && attachments.length === 0) return undefined;
  const entities = (message.text !== undefined ? message.entities : message.caption_entities) ?? [];
  const isGroup = message.chat.type === 'group' || message.chat.type === 'supergroup';
  if (!isGroup && message.chat.type !== 'private') return undefined;

  const command = parseCommand(rawText, identity.botUsername);
  if (command?.forOtherBot && isGroup) return undefined;
  const mentioned = mentionsBot(rawText, entities, identity);
  const text = rawText === '' ? '' : stripCommandTarget(stripBotMentions(rawText, entities, identity.botUsername), command);

  const accountId = String(identity.botId);
  const chatId = String(message.chat.id);
  const threadId = message.is_topic_message && message.message_thread_id !== undefined ? String(message.message_thread_id) : undefined;
  const from = message.from;
  const name = [from.first_name, from.last_name].filter(Boolean).join(' ');
  return {
    conversation: {
      channel: 'telegram',
      accountId,
      chatId,
      chatType: isGroup ? 'group' : 'dm',
      ...(threadId !== undefined ? { threadId } : {}),
      messageId: String(message.message_id),
    },
    dedupeKey: `telegram:${accountId}:${chatId}:${message.message_id}`,
    sender: { id: String(from.id), ...(name ? { name } : {}), ...(from.username ? { username: from.username } : {}) },
    text,
    sentAt: message.date * 1000,
    platformOrder: message.message_id,
    ...(isGroup && 'title' in message.chat ? { chatTitle: message.chat.title } : {}),
    ...(threadId !== undefined ? { threadKind: 'topic' as const } : {}),
    addressed: !isGroup || mentioned || isReplyToBot(message, identity.botId) || command !== undefined,
    agentId: identity.agentId,
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(message.media_group_id !== undefined ? { mediaGroupId: `telegram:${accountId}:${chatId}:${message.media_group_id}` } : {}),
  };
}

function parseCommand(text: string, botUsername: string): { target: string | undefined; forOtherBot: boolean } | undefined {
  const match = COMMAND_PATTERN.exec(text);
  if (match === null) return undefined;
  const target = match[2];
  return { target, forOtherBot: target !== undefined && target.toLowerCase() !== botUsername.toLowerCase() };
}

/** `/stop@BotName args` → `/stop args`. */
function stripCommandTarget(text: string, command: { target: string | undefined } | undefined): string {
  if (command?.target === undefined) return text;
  return text.replace(COMMAND_PATTERN, (whole) => whole.slice(0, whole.indexOf('@')));
}

function entityText(text: string, entity: MessageEntity): string {
  return text.slice(entity.offset, entity.offset + entity.length);
}

function isOwnMention(text: string, entity: MessageEntity, botUsername: string): boolean {
  return entity.type === 'mention' && entityText(text, entity).toLowerCase() === `@${botUsername.toLowerCase()}`;
}

function mentionsBot(text: string, entities: MessageEntity[], identity: BotIdentity): boolean {
  return entities.some(
    (entity) =>
      isOwnMention(text, entity, identity.botUsername) || (entity.type === 'text_mention' && entity.user?.id === identity.botId),
  );
}

/** Removes `@botname` (entity offsets count UTF-16 units, as JavaScript strings do) and the space it leaves doubled. */
function stripBotMentions(text: string, entities: MessageEntity[], botUsername: string): string {
  const mentions = entities.filter((entity) => isOwnMention(text, entity, botUsername)).sort((a, b) => b.offset - a.offset);
  if (mentions.length === 0) return text;
  let stripped = text;
  for (const mention of mentions) {
    const before = stripped.slice(0, mention.offset);
    const after = stripped.slice(mention.offset + mention.length);
    stripped = before + (/\s$/.test(before) && /^ /.test(after) ? after.slice(1) : after);
  }
  // a message that was only the mention still reaches the model as written
  return stripped.trim() || text.trim();
}

/** In a forum topic every message "replies" to the topic's creation message; only a real reply counts. */
function isReplyToBot(message: Message, botId: number): boolean {
  const repliedTo = message.reply_to_message;
  if (repliedTo === undefined || repliedTo.from?.id !== botId) return false;
  return !(message.is_topic_message && repliedTo.message_id === message.message_thread_id);
}
