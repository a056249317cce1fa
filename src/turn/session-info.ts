import type { InboundMessage } from '../core/inbound-message.js';
import type { TurnPerson } from '../store/turn-record.js';
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

/**
 * The names a turn's messages carry, stored with the turn: each sender as the platform named them, and the
 * group's title. A scheduled firing's sender is the task's creator as the task remembers them, not a fresh
 * naming, so it names nobody.
 */
export function namesOf(messages: readonly InboundMessage[]): { people: TurnPerson[]; chatTitle?: string } {
  const people: TurnPerson[] = [];
  for (const message of messages) {
    if (message.scheduled) continue;
    const { name, username } = message.sender;
    if (!name && !username) continue;
    people.push({ channel: message.conversation.channel, userId: message.sender.id, ...(name ? { name } : {}), ...(username ? { username } : {}) });
  }
  const latest = messages.at(-1);
  const chatTitle = latest?.conversation.chatType === 'group' && latest.chatTitle ? latest.chatTitle : undefined;
  return { people, ...(chatTitle ? { chatTitle } : {}) };
}
