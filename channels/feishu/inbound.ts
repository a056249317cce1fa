import type { InboundMessage } from '../../src/core/index.js';
import { checkMessageEvent } from './event-schema.js';
import { attachmentsOf, FILE_MESSAGE_TYPES } from './attachments.js';
import { messageText } from './message-text.js';

export interface FeishuIdentity {
  appId: string;
  botOpenId: string;
  botName: string | undefined;
  agentId: string;
}

export type NormalizedEvent =
  | { kind: 'message'; message: InboundMessage; dropped?: string[] }
  | { kind: 'ignored'; reason: string }
  /** Fields the channel needs have the wrong type. */
  | { kind: 'invalid'; reason: string };

/** The fields of `im.message.receive_v1` this channel reads; everything else is left alone. */
interface ReceivedMessage {
  senderType: string | undefined;
  senderId: string | undefined;
  messageId: string;
  parentId: string | undefined;
  chatId: string;
  chatType: string;
  messageType: string;
  content: string;
  createTime: number;
  mentions: Mention[];
}

interface Mention {
  key: string;
  openId: string | undefined;
  name: string | undefined;
}

/** Chat commands that also work as a bare word after the bot's mention (`@bot stop`). */
const COMMAND_WORDS = new Set(['stop', 'new', 'reset', 'status', 'help', 'compact', 'usage', 'model']);

/**
 * One `im.message.receive_v1` event (schema 2.0 `event` object) → the message the rest of the service
 * sees, or the reason it gets no turn (messages from apps, including the bot itself, and types other
 * than text and rich text), or why it is invalid. `repliesToBot`: the message replies to one the bot
 * sent (the caller knows). `dropped`: optional fields of the wrong type that were left out.
 */
export function normalizeMessageEvent(event: unknown, identity: FeishuIdentity, options: { repliesToBot?: boolean } = {}): NormalizedEvent {
  const read = readReceivedMessage(event);
  if (read.kind === 'invalid') return read;
  const { received, dropped } = read;
  if (received === undefined) return { kind: 'ignored', reason: 'not a message event' };
  if (received.senderType !== 'user') return { kind: 'ignored', reason: `sent by sender_type ${received.senderType ?? 'unknown'}` };
  if (received.senderId === undefined) return { kind: 'ignored', reason: 'no sender id' };
  const attachments = attachmentsOf(received.messageId, received.messageType, received.content);
  const raw = FILE_MESSAGE_TYPES.has(received.messageType) && attachments.length > 0 ? '' : messageText(received.messageType, received.content);
  if (raw === undefined) {
    const known = received.messageType === 'text' || received.messageType === 'post';
    return { kind: 'ignored', reason: known ? `unreadable ${received.messageType} content` : `message_type ${received.messageType} not supported` };
  }

  const mentionedBot = received.mentions.some((mention) => mention.openId === identity.botOpenId);
  let text = resolveMentions(raw, received.mentions, identity.botOpenId).trim();
  // a message that was only the mention still reaches the model as something
  if (text === '' && mentionedBot && attachments.length === 0) text = `@${identity.botName ?? 'bot'}`;
  if (text === '' && attachments.length === 0) return { kind: 'ignored', reason: 'empty message' };
  if (mentionedBot) text = bareWordAsCommand(text);

  const isGroup = received.chatType !== 'p2p';
  return {
    kind: 'message',
    message: {
      conversation: {
        channel: 'feishu',
        accountId: identity.appId,
        chatId: received.chatId,
        chatType: isGroup ? 'group' : 'dm',
        messageId: received.messageId,
      },
      dedupeKey: `feishu:${identity.appId}:${received.chatId}:${received.messageId}`,
      sender: { id: received.senderId },
      text,
      sentAt: received.createTime,
      platformOrder: received.createTime,
      addressed: !isGroup || mentionedBot || text.startsWith('/') || options.repliesToBot === true,
      agentId: identity.agentId,
      ...(attachments.length > 0 ? { attachments } : {}),
    },
    ...(dropped.length > 0 ? { dropped } : {}),
  };
}

/** The message a group message replies to, if any: whether it is the bot's decides whether the bot is addressed. */
export function groupReplyTargetOf(event: unknown): string | undefined {
  const read = readReceivedMessage(event);
  return read.kind === 'read' && read.received !== undefined && read.received.chatType !== 'p2p' ? read.received.parentId : undefined;
}

/** `@_user_N` → `@Name`; the bot's own placeholder is removed with one of the spaces around it. */
function resolveMentions(text: string, mentions: Mention[], botOpenId: string): string {
  // longest keys first, so `@_user_1` never eats the start of `@_user_10`
  const ordered = [...mentions].sort((first, second) => second.key.length - first.key.length);
  let resolved = text;
  for (const mention of ordered) {
    const pattern = new RegExp(`( ?)${escapeRegExp(mention.key)}(?![0-9])( ?)`, 'g');
    resolved = resolved.replace(pattern, (_whole, before: string, after: string) =>
      mention.openId === botOpenId ? (before !== '' && after !== '' ? ' ' : '') : `${before}@${mention.name ?? 'someone'}${after}`,
    );
  }
  return resolved.replace(/@_all(?![0-9A-Za-z_])/g, '@all');
}

/** `stop` → `/stop` for the chat commands, only when the whole message is that word. */
function bareWordAsCommand(text: string): string {
  const word = /^([A-Za-z]+)[.!]?$/.exec(text)?.[1]?.toLowerCase();
  return word !== undefined && COMMAND_WORDS.has(word) ? `/${word}` : text;
}

/** `received` undefined: the event carries no message (another kind of event). */
function readReceivedMessage(event: unknown): { kind: 'read'; received: ReceivedMessage | undefined; dropped: string[] } | { kind: 'invalid'; reason: string } {
  const checked = checkMessageEvent(event);
  if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
  const { sender, message } = checked.value;
  if (message === undefined) return { kind: 'read', received: undefined, dropped: checked.dropped };
  const senderIds = sender?.sender_id;
  const createTime = Number(message.create_time);
  return {
    kind: 'read',
    received: {
      senderType: sender?.sender_type,
      senderId: senderIds?.open_id ?? senderIds?.user_id ?? senderIds?.union_id,
      messageId: message.message_id,
      parentId: message.parent_id || undefined,
      chatId: message.chat_id,
      chatType: message.chat_type,
      messageType: message.message_type,
      content: message.content,
      // out-of-range times (1e30) are clamped with every other inbound date (channels/shared)
      createTime: Number.isFinite(createTime) && createTime > 0 ? createTime : Date.now(),
      mentions: (message.mentions ?? []).map((mention) => ({ key: mention.key, openId: mention.id?.open_id, name: mention.name })),
    },
    dropped: checked.dropped,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
