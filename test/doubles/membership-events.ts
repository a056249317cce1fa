import { randomUUID } from 'node:crypto';
import type { Update } from 'grammy/types';

/**
 * What each platform sends when the bot itself is removed from a chat, blocked, or added back: Telegram's
 * `my_chat_member` update, Slack's member / app events, Feishu's `im.chat.member.bot.*` events.
 */
let updateId = 90_000;

/** https://core.telegram.org/bots/api#chatmemberupdated: the bot's status in `chatId` went from `from` to `to`. */
export function telegramMyChatMember(bot: { botId: number; botUsername: string }, chatId: number, change: { from: string; to: string; byUserId?: number }): Update {
  const byUserId = change.byUserId ?? (chatId > 0 ? chatId : 4242);
  const chat = chatId > 0 ? { id: chatId, type: 'private', first_name: 'User' } : { id: chatId, type: 'supergroup', title: 'Test group' };
  const botUser = { id: bot.botId, is_bot: true, first_name: bot.botUsername, username: bot.botUsername };
  return {
    update_id: ++updateId,
    my_chat_member: {
      chat,
      from: { id: byUserId, is_bot: false, first_name: 'User', username: `user${byUserId}` },
      date: Math.floor(Date.now() / 1000),
      old_chat_member: { user: botUser, status: change.from },
      new_chat_member: { user: botUser, status: change.to, ...(change.to === 'kicked' ? { until_date: 0 } : {}) },
    },
  } as Update;
}

/** An Events API envelope around `event`, as Slack posts it (and as Socket Mode carries it). */
export function slackEnvelope(bot: { botUserId: string; teamId: string }, event: Record<string, unknown>) {
  const eventTs = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
  return {
    token: 'legacy-verification-token',
    team_id: bot.teamId,
    api_app_id: 'A0APP001',
    event: { event_ts: eventTs, ...event },
    type: 'event_callback' as const,
    event_id: `EvM${randomUUID().slice(0, 8)}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: bot.teamId, user_id: bot.botUserId, is_bot: true }],
  };
}

export const slackMembership = {
  /** https://api.slack.com/events/member_left_channel, for the bot user. */
  left: (bot: { botUserId: string; teamId: string }, channel: string) =>
    slackEnvelope(bot, { type: 'member_left_channel', user: bot.botUserId, channel, channel_type: 'C', team: bot.teamId }),
  joined: (bot: { botUserId: string; teamId: string }, channel: string, inviter = 'U0INVITER') =>
    slackEnvelope(bot, { type: 'member_joined_channel', user: bot.botUserId, channel, channel_type: 'C', team: bot.teamId, inviter }),
  /** Another user leaving: not about the bot. */
  otherLeft: (bot: { botUserId: string; teamId: string }, channel: string, user: string) =>
    slackEnvelope(bot, { type: 'member_left_channel', user, channel, channel_type: 'C', team: bot.teamId }),
  uninstalled: (bot: { botUserId: string; teamId: string }) => slackEnvelope(bot, { type: 'app_uninstalled' }),
};

/** A schema 2.0 `im.chat.member.bot.deleted_v1` / `added_v1` envelope for the group `chatId`. */
export function feishuBotMembership(identity: { appId: string; verificationToken: string }, change: 'deleted' | 'added', chatId: string) {
  return {
    schema: '2.0',
    header: {
      event_id: `event-${randomUUID()}`,
      event_type: `im.chat.member.bot.${change}_v1`,
      create_time: String(Date.now()),
      token: identity.verificationToken,
      app_id: identity.appId,
      tenant_key: 'tenant-double',
    },
    event: {
      chat_id: chatId,
      operator_id: { open_id: 'ou_operator_1', union_id: 'on_operator_1', user_id: 'operator_1' },
      external: false,
      operator_tenant_key: 'tenant-double',
      name: 'Test group',
    },
  };
}
