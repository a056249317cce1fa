import { BotError } from '../core/errors.js';
import type { TurnRecord } from '../store/turn-record.js';

/** What the chat is told, once, when the model refuses a turn as too long even after compaction and trimming. */
export const TOO_LONG_REPLY =
  'Sorry, that was too long for the model to read in one go. Please send it shorter or split it into several messages (or start over with /new).';

/** The provider refused the request as longer than its context window (OpenAI `context_length_exceeded`, Anthropic "prompt is too long"). */
export function isTooLongForModel(error: unknown): boolean {
  return error instanceof BotError && error.code === 'context-length';
}

/**
 * The turn as stored: every message kept in the record, but left out of the context of later turns (they see a
 * short note instead, see agent/history/omitted-messages.ts), so the next message of the chat works.
 */
export function leftOutOfContext(record: TurnRecord): TurnRecord {
  return { ...record, messages: record.messages.map((message) => ({ ...message, omittedFromContext: true })) };
}
