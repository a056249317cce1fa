import type { ChatMessage } from '../../core/chat-message.js';

/**
 * What a later request carries in place of a user message the model refused as too long: the record keeps the
 * message itself, but replaying it would make every later turn of the chat fail the same way.
 */
export function omittedMessageNote(characters: number): string {
  return (
    `[A message of ${characters.toLocaleString('en-US')} characters was left out here: it was too long for the model to read, ` +
    'and the user was asked to send it shorter or in parts.]'
  );
}

function charactersOf(message: ChatMessage): number {
  return message.parts.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : part.type === 'tool-result' ? part.content.length : 0), 0);
}

/**
 * Stored history as the model may see it: a user message left out of the context becomes a short note, and the
 * assistant and tool messages of its turn are dropped (they answered a request that never fit). Each message
 * keeps its other fields (seq, time).
 */
export function withOmittedAsNotes<Message extends ChatMessage & { omittedFromContext?: boolean }>(history: Message[]): Message[] {
  if (!history.some((message) => message.omittedFromContext)) return history;
  return history.flatMap((message): Message[] => {
    if (!message.omittedFromContext) return [message];
    if (message.role !== 'user') return [];
    return [{ ...message, parts: [{ type: 'text', text: omittedMessageNote(charactersOf(message)) }] }];
  });
}
