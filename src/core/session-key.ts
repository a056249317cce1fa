import type { InboundMessage } from './inbound-message.js';

/**
 * The one place session keys are built:
 * `agent:<agentId>:<channel>:<accountId>:dm:<userId>` or `…:group:<chatId>`,
 * with `:thread:<id>` / `:topic:<id>` for Slack threads and Telegram forum topics.
 */
export function sessionKeyOf(message: Pick<InboundMessage, 'agentId' | 'conversation' | 'sender' | 'threadKind'>): string {
  const { conversation } = message;
  const base = `agent:${message.agentId}:${conversation.channel}:${conversation.accountId}`;
  const chat = conversation.chatType === 'dm' ? `dm:${message.sender.id}` : `group:${conversation.chatId}`;
  const thread = conversation.threadId ? `:${message.threadKind ?? 'thread'}:${conversation.threadId}` : '';
  return `${base}:${chat}${thread}`;
}

export function isGroupSessionKey(sessionKey: string): boolean {
  return sessionKey.includes(':group:');
}
