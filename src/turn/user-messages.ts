import type { ChatMessage } from '../core/chat-message.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { ContextLine } from '../queue/group-context.js';
import type { TurnMessage } from '../store/turn-record.js';

function senderLabel(message: InboundMessage): string {
  const { name, username, id } = message.sender;
  if (name && username) return `${name} (@${username})`;
  return name ?? (username ? `@${username}` : id);
}

function contextBlock(lines: ContextLine[]): string {
  return ['[Messages since your last reply]', ...lines.map((line) => `${line.senderName}: ${line.text}`)].join('\n');
}

/**
 * The user side of a turn: one user message per inbound message. The user's text is always the last
 * line(s); in groups a sender envelope goes before it, and unaddressed chatter before that.
 */
export function buildUserMessages(
  messages: InboundMessage[],
  groupContext: ContextLine[],
  guardedTexts: string[],
): { forModel: ChatMessage[]; forStore: TurnMessage[] } {
  const forModel: ChatMessage[] = [];
  const forStore: TurnMessage[] = [];
  messages.forEach((message, index) => {
    const blocks: string[] = [];
    if (index === 0 && groupContext.length > 0) blocks.push(contextBlock(groupContext));
    const text = guardedTexts[index] ?? message.text;
    blocks.push(message.conversation.chatType === 'group' ? `[${senderLabel(message)}]\n${text}` : text);
    const parts = [{ type: 'text' as const, text: blocks.join('\n\n') }];
    forModel.push({ role: 'user', parts });
    forStore.push({ role: 'user', parts, inboundKey: message.dedupeKey, createdAt: new Date(message.sentAt) });
  });
  return { forModel, forStore };
}
