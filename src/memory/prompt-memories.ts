import { estimateTextTokens } from '../agent/tokens/estimate-tokens.js';
import type { Memory } from './memory-repository.js';

/** The memory section's budget in the system prompt. */
export const MEMORY_PROMPT_MAX_TOKENS = 800;

export const memoryLine = (memory: Memory): string => `[${memory.id}] ${memory.text}`;

const cost = (memory: Memory) => estimateTextTokens(memoryLine(memory)) + 1;

/** Whether every memory fits the section's budget (then no relevance search is needed). */
export function allFit(all: Memory[], maxTokens = MEMORY_PROMPT_MAX_TOKENS): boolean {
  return all.reduce((sum, memory) => sum + cost(memory), 0) <= maxTokens;
}

/**
 * The memories a turn's system prompt shows. When all of them fit the budget they all go, in creation order,
 * so the section (and the cached prompt prefix before it) only changes when memory changes; over the budget,
 * the most relevant to the new message go first (`relevant`, best first), then the newest, as many as fit.
 */
export function selectPromptMemories(all: Memory[], relevant: Memory[], maxTokens = MEMORY_PROMPT_MAX_TOKENS): Memory[] {
  if (allFit(all, maxTokens)) return all;
  const chosen = new Map<number, Memory>();
  let used = 0;
  for (const memory of [...relevant, ...[...all].reverse()]) {
    if (chosen.has(memory.id)) continue;
    const tokens = cost(memory);
    if (used + tokens > maxTokens) continue;
    chosen.set(memory.id, memory);
    used += tokens;
  }
  return [...chosen.values()];
}
