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

/** The session key of the chat itself, without a thread or topic (where chat-level commands act). */
export function chatSessionKeyOf(message: Pick<InboundMessage, 'agentId' | 'conversation' | 'sender' | 'threadKind'>): string {
  return sessionKeyOf({ ...message, conversation: { ...message.conversation, threadId: undefined } });
}

/**
 * The chat a session key belongs to: the key without its `:thread:<id>` / `:topic:<id>` (a chat's own key is its
 * chat). What a chat-wide `/model` choice is kept under (store/schema/chat-models.ts).
 */
export function chatKeyOfSessionKey(sessionKey: string): string {
  const thread = /:(?:thread|topic):/.exec(sessionKey);
  return thread ? sessionKey.slice(0, thread.index) : sessionKey;
}

/**
 * Where unaddressed group lines are kept and read: a reply inside an existing thread or topic keeps its
 * thread's key; a top-level message (or one that starts its own thread, as a Slack mention does) uses the
 * chat's key, so the chatter before a mention reaches the turn that mention starts.
 */
export function contextKeyOf(message: Pick<InboundMessage, 'agentId' | 'conversation' | 'sender' | 'threadKind'>): string {
  const { threadId, messageId } = message.conversation;
  return threadId !== undefined && threadId !== messageId ? sessionKeyOf(message) : chatSessionKeyOf(message);
}
