import type { ChatMessage } from '../../core/chat-message.js';
import type { TokenEstimator } from '../tokens/index.js';
import { DEFAULT_HISTORY_TURNS, limitHistoryTurns } from './limit-history-turns.js';
import { pruneToolResults } from './prune-tool-results.js';
import { repairToolPairing } from './repair-tool-pairing.js';

export interface HistoryOptions {
  /** `HISTORY_TURNS`: user turns kept (default 50). */
  historyTurns?: number;
  /** The model's context window in tokens; pruning ratios are relative to it. */
  contextWindow: number;
  estimateTokens?: TokenEstimator;
  /** Tokens spent outside the messages (system prompt, tool definitions). */
  reservedTokens?: number;
}

/** Before every LLM call: limit turns → prune old tool results → repair tool pairing. */
export function prepareHistory(messages: ChatMessage[], options: HistoryOptions): ChatMessage[] {
  const limited = limitHistoryTurns(messages, options.historyTurns ?? DEFAULT_HISTORY_TURNS);
  const pruned = pruneToolResults(limited, {
    contextWindow: options.contextWindow,
    ...(options.estimateTokens ? { estimateTokens: options.estimateTokens } : {}),
    ...(options.reservedTokens === undefined ? {} : { reservedTokens: options.reservedTokens }),
  });
  return repairToolPairing(pruned);
}
