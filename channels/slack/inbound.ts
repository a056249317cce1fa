import type { ChatType, InboundMessage } from '../../src/core/index.js';
import { isAssistantThreadMessage } from './assistant-context.js';
import { attachmentsOf, type SlackFile } from './attachments.js';
import { mentionsUser, readableText } from './inbound-text.js';

/** Who the bot is in this workspace (from `auth.test`). */
export interface SlackIdentity {
  botUserId: string;
  teamId: string;
  agentId: string;
}

/** The fields of a Slack `message` or `app_mention` event the bot reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string | null;
  text?: string;
  ts?: string;
  thread_ts?: string;
  parent_user_id?: string;
  edited?: unknown;
  hidden?: boolean;
  user_profile?: { display_name?: string; real_name?: string; name?: string };
  /** Files shared with the message (`file_share` subtype, or files on an app_mention). */
  files?: SlackFile[];
}

/** The fields of a slash command (form-encoded over HTTP, an object in Socket Mode). */
export interface SlashCommandFields {
  command?: string;
  text?: string;
  channel_id?: string;
  channel_name?: string;
  user_id?: string;
  user_name?: string;
  trigger_id?: string;
}

export interface InboundLookups {
  /** Has the bot answered in this thread (remembered across processes)? */
  isBotThread(channel: string, threadTs: string): Promise<boolean>;
  /** The channel's name for the prompt, when it can be had quickly. */
  channelName(channel: string): Promise<string | undefined>;
  /** The line of context a message in an assistant thread carries (the channel the person views), if any. */
  assistantContextNote?(channel: string, threadTs: string): Promise<string | undefined>;
}

/** Plain messages, messages with files, and thread replies also sent to the channel; edits, joins, deletions… are not turns. */
const ACCEPTED_SUBTYPES = new Set<string | undefined>([undefined, 'file_share', 'thread_broadcast']);

/** Whether an event of this type and subtype can be a turn, so the fields of a message are read from it. */
export function readsMessage(type: string, subtype: string | undefined): boolean {
  return (type === 'message' || type === 'app_mention') && ACCEPTED_SUBTYPES.has(subtype);
}
const UNNAMED_CHANNELS = new Set(['directmessage', 'privategroup', 'mpdm']);

/**
 * One Slack message event → the message the rest of the service sees, or undefined for events that are
 * never a turn (bots, the bot itself, edits and other subtypes, empty text). In channels the bot answers
 * in the thread of the message, so every channel message belongs to a thread session.
 */
export async function normalizeEvent(event: SlackMessageEvent, identity: SlackIdentity, lookups: InboundLookups): Promise<InboundMessage | undefined> {
  if (!readsMessage(event.type, event.subtype) || event.edited !== undefined || event.hidden === true) return undefined;
  const { channel, ts, user } = event;
  if (event.bot_id !== undefined || user === undefined || user === identity.botUserId || !channel || !ts) return undefined;
  const rawText = event.text ?? '';
  const attachments = attachmentsOf(event.files);
  if (rawText.trim() === '' && attachments.length === 0) return undefined;

  const chatType = chatTypeOf(channel, event.channel_type);
  const threadTs = event.thread_ts;
  const inThread = threadTs !== undefined && threadTs !== ts;
  const mentioned = event.type === 'app_mention' || mentionsUser(rawText, identity.botUserId);
  const needsThreadCheck = chatType === 'group' && !mentioned && inThread && event.parent_user_id !== identity.botUserId;
  // an assistant thread (Slack's AI app surface) is titled by its first exchange and told what the person views
  const assistantThread = chatType === 'dm' && isAssistantThreadMessage(event);
  const [inBotThread, chatTitle, contextNote] = await Promise.all([
    needsThreadCheck ? lookups.isBotThread(channel, threadTs) : Promise.resolve(inThread && event.parent_user_id === identity.botUserId),
    chatType === 'group' ? lookups.channelName(channel) : Promise.resolve(undefined),
    assistantThread && threadTs !== undefined ? lookups.assistantContextNote?.(channel, threadTs) : Promise.resolve(undefined),
  ]);
  const threadId = chatType === 'dm' ? threadTs : (threadTs ?? ts);
  const name = event.user_profile?.display_name || event.user_profile?.real_name;
  const username = event.user_profile?.name;

  return {
    conversation: {
      channel: 'slack',
      accountId: identity.teamId,
      chatId: channel,
      chatType,
      ...(threadId !== undefined ? { threadId } : {}),
      messageId: ts,
    },
    // app_mention and message.channels deliver the same message with the same ts: one key, one turn
    dedupeKey: `slack:${identity.teamId}:${channel}:${ts}`,
    sender: { id: user, ...(name ? { name } : {}), ...(username ? { username } : {}) },
    // a message that is only the mention still reaches the model as written
    text: rawText.trim() === '' ? '' : readableText(rawText, identity.botUserId) || readableText(rawText, ''),
    sentAt: sentAtOf(ts),
    ...orderOf(ts),
    ...(chatTitle ? { chatTitle } : {}),
    ...(threadId !== undefined ? { threadKind: 'thread' as const } : {}),
    addressed: chatType === 'dm' || mentioned || inBotThread,
    agentId: identity.agentId,
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(assistantThread ? { titled: true } : {}),
    ...(contextNote ? { contextNote } : {}),
  };
}

/** A slash command → the chat command it stands for (`/stop args`), addressed, in the channel it was typed in. */
export function normalizeSlashCommand(fields: SlashCommandFields, identity: SlackIdentity): InboundMessage | undefined {
  const { command, channel_id: channel, user_id: user, trigger_id: triggerId } = fields;
  if (!command?.startsWith('/') || !channel || !user || !triggerId) return undefined;
  const chatType = chatTypeOf(channel, fields.channel_name === 'directmessage' ? 'im' : undefined);
  const chatTitle = chatType === 'group' && fields.channel_name && !UNNAMED_CHANNELS.has(fields.channel_name) ? fields.channel_name : undefined;
  return {
    conversation: { channel: 'slack', accountId: identity.teamId, chatId: channel, chatType, messageId: triggerId },
    dedupeKey: `slack:${identity.teamId}:${channel}:command:${triggerId}`,
    sender: { id: user, ...(fields.user_name ? { username: fields.user_name } : {}) },
    text: `${command.toLowerCase()} ${fields.text ?? ''}`.trim(),
    sentAt: Date.now(),
    ...(chatTitle ? { chatTitle } : {}),
    addressed: true,
    agentId: identity.agentId,
  };
}

function chatTypeOf(channel: string, channelType: string | undefined): ChatType {
  if (channelType !== undefined) return channelType === 'im' ? 'dm' : 'group';
  return channel.startsWith('D') ? 'dm' : 'group';
}

/** `1712345678.000200` → 1712345678000200, Slack's order of messages in a channel (exact: below 2^53). */
function orderOf(ts: string): { platformOrder?: number } {
  const match = /^(\d{1,10})\.(\d{6})$/.exec(ts);
  return match ? { platformOrder: Number(match[1]) * 1_000_000 + Number(match[2]) } : {};
}

/** `1712345678.000200` → epoch milliseconds. */
function sentAtOf(ts: string): number {
  const seconds = Number(ts);
  return Number.isFinite(seconds) ? Math.floor(seconds * 1000) : Date.now();
}
