import type { ConversationRef } from '../core/inbound-message.js';

/**
 * Whose memory a chat sees: the user's own in a DM (on that platform, whichever bot account), the group's in a
 * group. A group never reads a member's DM memories and a DM never reads a group's.
 */
export function memoryScopeOf(conversation: Pick<ConversationRef, 'channel' | 'accountId' | 'chatId' | 'chatType'>, userId: string): string {
  return conversation.chatType === 'dm'
    ? `dm:${conversation.channel}:${userId}`
    : `group:${conversation.channel}:${conversation.accountId}:${conversation.chatId}`;
}
