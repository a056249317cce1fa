import type { ChatMessage, MessagePart } from '../../core/chat-message.js';
import { estimateTokens as defaultEstimator, type TokenEstimator } from '../tokens/index.js';

export const CLEARED_TOOL_RESULT = '[Old tool result content cleared]';

const SOFT_TRIM_MIN_CHARS = 4000;
const SOFT_TRIM_HEAD_CHARS = 1500;
const SOFT_TRIM_TAIL_CHARS = 1500;

/**
 * The soft trim of one long tool result (head and tail with a note). Shared with the last-resort squeeze so
 * that an old result reads byte for byte the same whichever of the two shrank it: the prompt prefix stays
 * cacheable from one request to the next.
 */
export function softTrimToolResult(content: string, minChars = SOFT_TRIM_MIN_CHARS, head = SOFT_TRIM_HEAD_CHARS, tail = SOFT_TRIM_TAIL_CHARS): string {
  return content.length > minChars ? `${content.slice(0, head)}\n\n[... ${content.length - head - tail} characters trimmed ...]\n\n${content.slice(-tail)}` : content;
}

export interface PruneOptions {
  contextWindow: number;
  estimateTokens?: TokenEstimator;
  /** Tokens the request spends outside the messages (system prompt, tool definitions). */
  reservedTokens?: number;
  softTrimRatio?: number;
  hardClearRatio?: number;
  softTrimMinChars?: number;
  softTrimHeadChars?: number;
  softTrimTailChars?: number;
  keepLastAssistants?: number;
  /**
   * Hard clear runs only when the prunable tool results hold at least this many characters in all
   * (seed 000 §6, 50,000): clearing a few small results loses information and saves little. Default:
   * 50,000, or a quarter of the window's worth of characters for small windows.
   */
  hardClearMinPrunableChars?: number;
}

/** About four characters a token: a quarter of the window, in characters, is the window's token count. */
export function defaultHardClearFloor(contextWindow: number): number {
  return Math.min(50_000, Math.max(0, Math.floor(contextWindow)));
}

/** Tool messages that may be pruned: everything before the last N assistant messages and their results. */
function prunableIndexes(messages: ChatMessage[], keepLastAssistants: number): number[] {
  let protectedFrom = messages.length;
  let assistants = 0;
  for (let index = messages.length - 1; index >= 0 && assistants < keepLastAssistants; index--) {
    if (messages[index]?.role === 'assistant') {
      assistants++;
      protectedFrom = index;
    }
  }
  return messages.flatMap((message, index) => (message.role === 'tool' && index < protectedFrom ? [index] : []));
}

function mapResults(message: ChatMessage, change: (content: string) => string): ChatMessage {
  const parts = message.parts.map((part): MessagePart => (part.type === 'tool-result' ? { ...part, content: change(part.content) } : part));
  return { ...message, parts };
}

function toolResultChars(message: ChatMessage | undefined): number {
  return message?.parts.reduce((sum, part) => sum + (part.type === 'tool-result' ? part.content.length : 0), 0) ?? 0;
}

/**
 * Stage 2: shrink old tool results by estimated context fill. At `softTrimRatio` long results
 * keep only their head and tail; at `hardClearRatio` results are cleared, oldest first, until
 * the fill drops below it (when there is enough to clear, see `hardClearMinPrunableChars`). The last assistant messages with their results are never touched,
 * and only tool results are, so user messages (the first one included) always survive.
 */
export function pruneToolResults(messages: ChatMessage[], options: PruneOptions): ChatMessage[] {
  const estimate = options.estimateTokens ?? defaultEstimator;
  const soft = options.softTrimRatio ?? 0.3;
  const hard = options.hardClearRatio ?? 0.5;
  const minChars = options.softTrimMinChars ?? SOFT_TRIM_MIN_CHARS;
  const head = options.softTrimHeadChars ?? SOFT_TRIM_HEAD_CHARS;
  const tail = options.softTrimTailChars ?? SOFT_TRIM_TAIL_CHARS;
  if (options.contextWindow <= 0) return messages;

  const result = [...messages];
  const tokens = result.map((message) => estimate([message]));
  let total = tokens.reduce((sum, value) => sum + value, options.reservedTokens ?? 0);
  const ratio = (): number => total / options.contextWindow;
  const replace = (index: number, message: ChatMessage): void => {
    result[index] = message;
    const updated = estimate([message]);
    total += updated - (tokens[index] ?? 0);
    tokens[index] = updated;
  };
  if (ratio() < soft) return messages;

  const prunable = prunableIndexes(result, options.keepLastAssistants ?? 3);
  // measured before trimming: how much tool output the history really holds
  const prunableChars = prunable.reduce((sum, index) => sum + toolResultChars(result[index]), 0);
  for (const index of prunable) {
    const message = result[index];
    if (!message) continue;
    replace(index, mapResults(message, (content) => softTrimToolResult(content, minChars, head, tail)));
  }

  const floor = options.hardClearMinPrunableChars ?? defaultHardClearFloor(options.contextWindow);
  if (prunableChars < floor) return result;
  for (const index of prunable) {
    if (ratio() < hard) break;
    const message = result[index];
    if (message) replace(index, mapResults(message, () => CLEARED_TOOL_RESULT));
  }
  return result;
}
