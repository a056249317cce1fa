import type { LlmConfig } from '../config/app-config.js';
import { createAnthropicModel } from './anthropic.js';
import type { ChatModel } from './chat-model.js';
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

/** The model `config.provider` names. */
export function createChatModel(config: LlmConfig): ChatModel {
  switch (config.provider) {
    case 'openai':
      return createOpenAiModel(config);
    case 'anthropic':
      return createAnthropicModel(config);
  }
}
