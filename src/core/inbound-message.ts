import type { Attachment } from './attachment.js';

export type ChannelName = 'telegram' | 'slack' | 'feishu';
export type ChatType = 'dm' | 'group';

/** Where a reply goes: enough for the channel that produced the message to answer it. */
export interface ConversationRef {
  channel: ChannelName;
  accountId: string;
  chatId: string;
  chatType: ChatType;
  /** Slack thread ts, Telegram forum topic id. */
  threadId?: string;
  /** The platform message that triggered the turn (Feishu replies to it, Slack reacts to it). */
  messageId: string;
}

export interface Sender {
  id: string;
  name?: string;
  username?: string;
}

/** A message normalized by a channel adapter; no platform types past this point. */
export interface InboundMessage {
  conversation: ConversationRef;
  /** Stable across platform redeliveries of the same message; the queue's job id and dedupe key derive from it. */
  dedupeKey: string;
  sender: Sender;
  text: string;
  /** Unix epoch milliseconds when the platform says the message was sent. */
  sentAt: number;
  /**
   * The platform's own order of messages within a chat (Telegram message_id, Slack ts in microseconds,
   * Feishu create_time): messages answered together are put in this order, not in order of arrival.
   */
  platformOrder?: number;
  chatTitle?: string;
  threadKind?: 'thread' | 'topic';
  /** Mentioned, replied to, or a command; always true in a DM. */
  addressed: boolean;
  agentId: string;
  /** Photos, voice notes, audio and documents sent with the message (references, never bytes). */
  attachments?: Attachment[];
  /**
   * Messages sent together as one album (Telegram `media_group_id`): they arrive as separate updates and are
   * answered as ONE turn (the scheduler holds the first briefly for the rest).
   */
  mediaGroupId?: string;
  /** A scheduled task's firing, not a person's words (schedules): the model is told so. */
  scheduled?: { taskId: string; firingId: string };
  /**
   * One line the platform gives about where the user is as they write (Slack: the channel they view beside an
   * assistant thread). Shown to the model before the user's words and stored with them; never a fetch of
   * that place's content.
   */
  contextNote?: string;
  /**
   * The platform shows this conversation under a title the bot gives it (a Slack assistant thread): its first
   * exchange names it, there (`Channel.setConversationTitle`) and as the session's title in the console.
   */
  titled?: boolean;
}
