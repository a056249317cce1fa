import type { Channel } from '../core/channel.js';
import type { ConversationRef, InboundMessage } from '../core/inbound-message.js';
import type { Logger } from '../observability/logger.js';
import type { OpenedSession } from './turn-store.js';

/** About what Slack shows of an assistant thread's title in its history list; the console shows the same. */
export const CONVERSATION_TITLE_MAX_CHARS = 60;

/**
 * A conversation's title from its first exchange: the user's first words (their first non-empty line), else the
 * answer's first line without Markdown marks; whitespace collapsed, cut at a word within the bound with an
 * ellipsis. Undefined when both are empty. No model call: the title costs nothing and is the same on every retry.
 */
export function conversationTitle(userText: string, answer: string): string | undefined {
  const line = firstLine(userText) ?? firstLine(answer.replace(/[*_`~#>|]+/g, ' '));
  if (line === undefined) return undefined;
  if (line.length <= CONVERSATION_TITLE_MAX_CHARS) return line;
  const cut = line.slice(0, CONVERSATION_TITLE_MAX_CHARS - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord >= CONVERSATION_TITLE_MAX_CHARS / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

function firstLine(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const collapsed = line.replace(/\s+/g, ' ').trim();
    if (collapsed !== '') return collapsed;
  }
  return undefined;
}

/**
 * The title a turn gives its conversation: only where the platform titles it (`titled` messages: a Slack assistant
 * thread), only at its first exchange (nothing stored before, no `/new` yet), only when there is an answer.
 */
export function firstExchangeTitle(messages: readonly InboundMessage[], session: OpenedSession, reply: string): string | undefined {
  const latest = messages.at(-1);
  if (!latest?.titled || reply === '') return undefined;
  if (session.history.length > 0 || session.summary !== undefined || session.conversation !== 0) return undefined;
  return conversationTitle(messages[0]!.text, reply);
}

/** Shows the title on the platform; a refusal is logged, never the turn's failure (the console has it already). */
export async function showConversationTitle(channel: Channel, to: ConversationRef, title: string, logger: Logger): Promise<void> {
  try {
    await channel.setConversationTitle?.(to, title);
  } catch (error) {
    logger.warn({ err: error, chatId: to.chatId, threadId: to.threadId }, 'the platform did not take the conversation title');
  }
}
