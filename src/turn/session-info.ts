import type { InboundMessage } from '../core/inbound-message.js';
import type { SessionInfo } from './turn-dependencies.js';

/** The session row a turn belongs to, from the key and the latest message. */
export function sessionInfoOf(sessionKey: string, message: InboundMessage): SessionInfo {
  const { conversation } = message;
  return {
    key: sessionKey,
    agentId: message.agentId,
    channel: conversation.channel,
    accountId: conversation.accountId,
    chatId: conversation.chatId,
    chatType: conversation.chatType,
    ...(conversation.chatType === 'dm' ? { userId: message.sender.id } : {}),
    ...(message.chatTitle ? { title: message.chatTitle } : {}),
  };
}
