import type { ChannelName, ChatType } from './inbound-message.js';

/**
 * The platform says the bot's place in a chat changed (Telegram `my_chat_member`, Slack `member_left_channel` /
 * `member_joined_channel` / `app_uninstalled`, Feishu `im.chat.member.bot.deleted_v1` / `…added_v1`), normalized
 * by the channel: no platform types past this point.
 */
export interface ChatMembershipChange {
  channel: ChannelName;
  accountId: string;
  /** The chat; absent: every chat of the account (the Slack app was uninstalled from the workspace). */
  chat?: {
    chatId: string;
    chatType: ChatType;
    /** In a DM, the user (a DM's session belongs to its user). */
    userId?: string;
    /**
     * A forum topic (or a private-chat topic) of the chat: the change concerns that topic only (Telegram
     * `forum_topic_closed` / `forum_topic_reopened`, or a topic the platform refused on a send).
     */
    threadId?: string;
  };
  /** `removed`: kicked, left, blocked by the user, uninstalled; `added`: added back, unblocked. */
  change: 'removed' | 'added';
  /** The platform's word for it, for the log and the paused task: `kicked`, `left`, `blocked`, `uninstalled`, `topic closed`… */
  reason: string;
  /** Who did it, as the platform identifies users, when it says. */
  by?: string;
  /** Unix epoch milliseconds when the platform says it happened. */
  at: number;
}

/** `rejected`: not recorded (Redis or the database is down); the transport asks the platform to redeliver. */
export type ChatMembershipOutcome = { kind: 'recorded' } | { kind: 'rejected'; reason: string };

export type ChatMembershipSink = (change: ChatMembershipChange) => Promise<ChatMembershipOutcome>;
