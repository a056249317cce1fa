import type { ChatMembershipChange } from '../../src/core/index.js';
import type { SlackIdentity } from './inbound.js';

/** The fields of the membership events read here (https://api.slack.com/events/member_left_channel and siblings). */
interface MembershipEvent {
  type?: unknown;
  user?: unknown;
  channel?: unknown;
  actor_id?: unknown;
  inviter?: unknown;
  event_ts?: unknown;
  tokens?: { bot?: unknown };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Slack events about the bot's own place in the workspace: `member_left_channel` for the bot user (removed from
 * a channel; `channel_left` / `group_left` when Slack sends those to the bot instead), `member_joined_channel`
 * for the bot user (added back), and `app_uninstalled` / `tokens_revoked` of the bot token (gone from every
 * chat of the workspace). Anything else is undefined.
 */
export function membershipChangeOf(value: unknown, identity: SlackIdentity): ChatMembershipChange | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as MembershipEvent;
  const seconds = Number(text(event.event_ts));
  const base = { channel: 'slack' as const, accountId: identity.teamId, at: Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : Date.now() };
  const chat = (channel: string) => ({ chatId: channel, chatType: channel.startsWith('D') ? ('dm' as const) : ('group' as const) });
  const channel = text(event.channel);
  switch (event.type) {
    case 'member_left_channel':
      if (event.user !== identity.botUserId || !channel) return undefined;
      return { ...base, chat: chat(channel), change: 'removed', reason: 'left the channel' };
    case 'channel_left':
    case 'group_left': {
      if (!channel) return undefined;
      const by = text(event.actor_id);
      return { ...base, chat: chat(channel), change: 'removed', reason: 'removed from the channel', ...(by ? { by } : {}) };
    }
    case 'member_joined_channel': {
      if (event.user !== identity.botUserId || !channel) return undefined;
      const by = text(event.inviter);
      return { ...base, chat: chat(channel), change: 'added', reason: 'added to the channel', ...(by ? { by } : {}) };
    }
    case 'app_uninstalled':
      return { ...base, change: 'removed', reason: 'the app was uninstalled' };
    case 'tokens_revoked': {
      const bots = event.tokens?.bot;
      if (!Array.isArray(bots) || !bots.includes(identity.botUserId)) return undefined;
      return { ...base, change: 'removed', reason: 'the bot token was revoked' };
    }
    default:
      return undefined;
  }
}
