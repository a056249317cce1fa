import { estimateTextTokens, estimateTokens } from '../agent/tokens/index.js';
import type { ChatRequest } from '../llm/chat-model.js';
import type { ModelPrice } from '../llm/pricing.js';

/** The estimate is within about 15 % (src/agent/tokens); a margin keeps the reservation an upper bound. */
const INPUT_MARGIN = 1.25;

/**
 * What a call can cost at most, as far as we can tell before making it: the estimated prompt (system, messages,
 * tool definitions) at the full input price — nothing assumed cached — plus the largest answer (the output cap the
 * request is sent with) at the output price.
 */
export function expectedCostUsd(price: ModelPrice, request: Pick<ChatRequest, 'system' | 'messages' | 'tools'> & { maxTokens: number }): number {
  const toolTokens = request.tools?.length ? estimateTextTokens(JSON.stringify(request.tools)) : 0;
  const inputTokens = Math.ceil((estimateTextTokens(request.system) + estimateTokens(request.messages) + toolTokens) * INPUT_MARGIN);
  const cacheWritePrice = Math.max(price.input, price.cacheWrite ?? price.input);
  const outputTokens = request.maxTokens;
  return (inputTokens * cacheWritePrice + outputTokens * price.output) / 1_000_000;
}
