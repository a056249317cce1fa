import type { ChatMemberUpdated } from 'grammy/types';
import type { ChatMembershipChange } from '../../src/core/index.js';

/** Statuses in which the bot is in the chat; `restricted` counts when Telegram says it is still a member. */
const PRESENT = new Set(['creator', 'administrator', 'member']);

/**
 * `my_chat_member`: the bot's own status in a chat changed (https://core.telegram.org/bots/api#chatmemberupdated).
 * In a group, `left` / `kicked` is the bot removed and a member status is the bot added back; in a private chat,
 * `kicked` is the user blocking the bot and `member` unblocking it. Chats the bot never answers (channels) and
 * a change about another user are undefined.
 */
export function membershipChangeOf(update: ChatMemberUpdated, accountId: string, botId: number): ChatMembershipChange | undefined {
  const { chat, new_chat_member: member } = update;
  if (member.user.id !== botId) return undefined;
  const isGroup = chat.type === 'group' || chat.type === 'supergroup';
  if (!isGroup && chat.type !== 'private') return undefined;
  const present = PRESENT.has(member.status) || (member.status === 'restricted' && (member as { is_member?: boolean }).is_member === true);
  const reason = isGroup ? (present ? 'added' : member.status) : present ? 'unblocked' : 'blocked';
  return {
    channel: 'telegram',
    accountId,
    chat: { chatId: String(chat.id), chatType: isGroup ? 'group' : 'dm', ...(isGroup ? {} : { userId: String(chat.id) }) },
    change: present ? 'added' : 'removed',
    reason,
    ...(update.from ? { by: String(update.from.id) } : {}),
    at: typeof update.date === 'number' ? update.date * 1000 : Date.now(),
  };
}
