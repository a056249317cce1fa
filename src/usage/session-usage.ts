import { estimateTextTokens, estimateTokens, TokenCalibration } from '../agent/index.js';
import type { SessionStats } from '../store/session-stats.js';

/** What `/status` says about a session's spending and context. */
export interface SessionUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  estimatedContextTokens: number;
  lastModel: string | null;
  /** Attachments since `/new`; absent or zero files: no line. */
  media?: { files: number; bytes: number; transcriptions: number; transcriptionMs: number };
}

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
