import type { LlmConfig } from './llm-config.js';
import type { ChatModel, ChatRequest, ModelStreamEvent } from './chat-model.js';
import { FailoverChatModel, type FailoverOptions } from './failover-chat-model.js';

export * from './chat-model.js';
export { convertOpenAiMessages } from './convert-openai-messages.js';
export { convertAnthropicMessages, hasToolBlocks } from './convert-anthropic-messages.js';
export { convertOpenAiTools, convertAnthropicTools } from './convert-tools.js';
export { mapOpenAiFinishReason, mapAnthropicStopReason } from './map-stop-reason.js';
export { toBotError, retryAfterMsOf, type ErrorContext, type SdkErrorClasses } from './provider-errors.js';
export { costOf, priceOf, priceTableOf, transcriptionCostOf, MODEL_PRICES, TRANSCRIPTION_PRICES, type ModelPrice } from './pricing.js';
export { parsePriceOverrides } from './price-overrides.js';
export { FailoverChatModel, isFailoverError, modelKey, type Failover, type FailoverOptions, type FailoverReason } from './failover-chat-model.js';
export type { FailoverCooldowns } from './failover-cooldowns.js';

/** The provider's own module (its SDK is loaded with it): ./openai.js or ./anthropic.js. */
async function loadModel(config: LlmConfig): Promise<ChatModel> {
  switch (config.provider) {
    case 'openai':
      return (await import('./openai.js')).createOpenAiModel(config);
    case 'anthropic':
      return (await import('./anthropic.js')).createAnthropicModel(config);
  }
}

/**
 * The model `config.provider` names. Its SDK loads on the first call, not at start: a deployment loads only the
 * SDKs of the models it really calls (a fallback that is never needed costs nothing).
 */
export function createChatModel(config: LlmConfig): ChatModel {
  let loading: Promise<ChatModel> | undefined;
  let loaded: ChatModel | undefined;
  async function* firstStream(request: ChatRequest): AsyncGenerator<ModelStreamEvent> {
    loading ??= loadModel(config).then((model) => (loaded = model));
    yield* (await loading).stream(request);
  }
  const stream = (request: ChatRequest) => (loaded ? loaded.stream(request) : firstStream(request));
  return { provider: config.provider, model: config.model, contextWindow: config.contextWindow, maxOutputTokens: config.maxOutputTokens, stream };
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
export { createTranscriber, type Transcriber, type Transcription, type TranscriptionConfig } from './transcription.js';
export { createOpenAiEmbedder, type Embedder, type EmbeddingConfig } from './embeddings.js';
