import type { LlmConfig } from '../config/app-config.js';
import { createAnthropicModel } from './anthropic.js';
import type { ChatModel } from './chat-model.js';
import { FailoverChatModel, type FailoverOptions } from './failover-chat-model.js';
import { createOpenAiModel } from './openai.js';

export * from './chat-model.js';
export { createOpenAiModel } from './openai.js';
export { createAnthropicModel } from './anthropic.js';
export { convertOpenAiMessages } from './convert-openai-messages.js';
export { convertAnthropicMessages, hasToolBlocks } from './convert-anthropic-messages.js';
export { convertOpenAiTools, convertAnthropicTools } from './convert-tools.js';
export { mapOpenAiFinishReason, mapAnthropicStopReason } from './map-stop-reason.js';
export { toBotError, retryAfterMsOf, type ErrorContext } from './provider-errors.js';
export { costOf, priceOf, priceTableOf, transcriptionCostOf, MODEL_PRICES, TRANSCRIPTION_PRICES, type ModelPrice } from './pricing.js';
export { parsePriceOverrides } from './price-overrides.js';
export { FailoverChatModel, isFailoverError, modelKey, type Failover, type FailoverOptions, type FailoverReason } from './failover-chat-model.js';
export type { FailoverCooldowns } from './failover-cooldowns.js';

/** The model `config.provider` names. */
export function createChatModel(config: LlmConfig): ChatModel {
  switch (config.provider) {
    case 'openai':
      return createOpenAiModel(config);
    case 'anthropic':
      return createAnthropicModel(config);
  }
}

/**
 * The agent's model: the primary alone, or with fallbacks a failover chain over them (CONTRACT §17). Without
 * fallbacks nothing changes: no wrapper, no Redis read per call.
 */
export function createModelChain(primary: LlmConfig, fallbacks: readonly LlmConfig[], failover: FailoverOptions | undefined): ChatModel {
  const model = createChatModel(primary);
  if (fallbacks.length === 0 || !failover) return model;
  return new FailoverChatModel([model, ...fallbacks.map(createChatModel)], failover);
}
