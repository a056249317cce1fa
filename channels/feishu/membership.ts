import type { ChatMembershipChange, ChatMembershipOutcome } from '../../src/core/index.js';

/** The events about the bot itself in a group (https://open.feishu.cn/document/server-docs/group/chat-member/event/). */
const BOT_MEMBERSHIP_EVENTS: Record<string, ChatMembershipChange['change']> = {
  'im.chat.member.bot.deleted_v1': 'removed',
  'im.chat.member.bot.added_v1': 'added',
};

/** Where the transports hand a membership event: the outcome, or undefined when it is not one the bot reads. */
export type MembershipEventHandler = (eventType: string | undefined, event: unknown) => Promise<ChatMembershipOutcome | undefined>;

export const isMembershipEvent = (eventType: string | undefined): eventType is string => eventType !== undefined && eventType in BOT_MEMBERSHIP_EVENTS;
export const MEMBERSHIP_EVENT_TYPES = Object.keys(BOT_MEMBERSHIP_EVENTS);

/** `im.chat.member.bot.deleted_v1` / `…added_v1` → the bot removed from / added to the group `chat_id`. */
export function membershipChangeOf(eventType: string | undefined, event: unknown, appId: string): ChatMembershipChange | undefined {
  if (!isMembershipEvent(eventType) || typeof event !== 'object' || event === null) return undefined;
  const { chat_id: chatId, operator_id: operator } = event as { chat_id?: unknown; operator_id?: { open_id?: unknown } };
  if (typeof chatId !== 'string' || chatId === '') return undefined;
  const change = BOT_MEMBERSHIP_EVENTS[eventType]!;
  const by = typeof operator?.open_id === 'string' ? operator.open_id : undefined;
  return {
    channel: 'feishu',
    accountId: appId,
    chat: { chatId, chatType: 'group' },
    change,
    reason: change === 'removed' ? 'removed from the group' : 'added to the group',
    ...(by ? { by } : {}),
    at: Date.now(),
  };
}
