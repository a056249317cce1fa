import type { ChatMessage } from '../../core/chat-message.js';
import { summaryPreambleLength } from './summary-preamble.js';

export const DEFAULT_HISTORY_TURNS = 50;

/**
 * Stage 1: keep the last `turns` user turns (each user message with the assistant and tool
 * messages after it). A leading summary preamble stays in front.
 */
export function limitHistoryTurns(messages: ChatMessage[], turns: number = DEFAULT_HISTORY_TURNS): ChatMessage[] {
  const pinned = summaryPreambleLength(messages);
  const limit = Math.max(1, Math.floor(turns));
  let seen = 0;
  for (let index = messages.length - 1; index >= pinned; index--) {
    if (messages[index]?.role !== 'user') continue;
    seen++;
    if (seen === limit) return [...messages.slice(0, pinned), ...messages.slice(index)];
  }
  return messages;
}
