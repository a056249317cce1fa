import type { ChatMessage, MessagePart } from '../../core/chat-message.js';

/** Estimated tokens of some messages; the default is characters / 4. */
export type TokenEstimator = (messages: ChatMessage[]) => number;

function partChars(part: MessagePart): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text.length;
    case 'tool-call':
      return part.name.length + part.arguments.length;
    case 'tool-result':
      return part.content.length;
  }
}

export function messageChars(message: ChatMessage): number {
  return message.parts.reduce((sum, part) => sum + partChars(part), 0);
}

export const estimateTokens: TokenEstimator = (messages) => Math.ceil(messages.reduce((sum, message) => sum + messageChars(message), 0) / 4);
