import { addUsage, type TraceSpan } from '../agent/index.js';
import type { Usage } from '../llm/chat-model.js';

/**
 * What the turn's attachments cost in model calls (transcriptions): tokens and USD of its media spans. They are
 * part of the run's totals like the loop's calls, and charged to the turn's budgets.
 */
export function mediaCharges(spans: TraceSpan[]): { usage: Usage; costUsd: number } {
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let costUsd = 0;
  for (const span of spans) {
    if (span.kind !== 'media') continue;
    if (span.usage) usage = addUsage(usage, span.usage);
    costUsd += span.costUsd ?? 0;
  }
  return { usage, costUsd };
}
