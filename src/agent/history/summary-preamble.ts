import { assistantText, textOf, userText, type ChatMessage } from '../../core/chat-message.js';

export const SUMMARY_MARKER = '[Previous conversation summary]';
export const SUMMARY_ACKNOWLEDGEMENT = 'I understand the context of our previous conversation and will continue from there.';

/** The two messages that carry a stored summary into the next turn (seed 000 §7). */
export function summaryPreamble(summary: string): ChatMessage[] {
  return [userText(`${SUMMARY_MARKER}\n${summary}`), assistantText(SUMMARY_ACKNOWLEDGEMENT)];
}

/** How many leading messages are a summary preamble (0 or 2); the history pipeline never drops them. */
export function summaryPreambleLength(messages: ChatMessage[]): number {
  const [first, second] = messages;
  if (!first || !second || first.role !== 'user' || second.role !== 'assistant') return 0;
  return textOf(first).startsWith(SUMMARY_MARKER) ? 2 : 0;
}
