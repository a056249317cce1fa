import { estimateTextTokens, estimateTokens, TokenCalibration } from '../agent/index.js';
import type { SessionStats } from '../store/session-stats.js';
import type { SessionUsage } from './command-handler.js';

const calibration = new TokenCalibration();

/** `/status` numbers from the stored session: its totals, and the tokens a turn would load now. */
export function sessionUsageOf(stats: SessionStats | undefined, provider: string): SessionUsage | undefined {
  if (!stats) return undefined;
  const { summary, messages } = stats.context;
  const raw = estimateTokens(messages) + (summary ? estimateTextTokens(summary) : 0);
  return {
    inputTokens: stats.inputTokens,
    outputTokens: stats.outputTokens,
    cacheReadTokens: stats.cacheReadTokens,
    cacheWriteTokens: stats.cacheWriteTokens,
    costUsd: stats.costUsd,
    lastModel: stats.lastModel,
    estimatedContextTokens: calibration.correct(`${provider}:`, raw),
    media: stats.media,
  };
}
