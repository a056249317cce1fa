import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages';
import type { LlmConfig } from './llm-config.js';
import { BotError } from '../core/errors.js';
import { withCacheBreakpoints } from './anthropic-cache-breakpoints.js';
import { AnthropicStreamAssembler, finishFromMessage } from './anthropic-stream-assembler.js';
import { boundedRetryFetch } from './bounded-retry-fetch.js';
import { outputCapOf, type ChatModel, type ChatRequest, type ModelStreamEvent } from './chat-model.js';
import { convertAnthropicMessages, hasToolBlocks } from './convert-anthropic-messages.js';
import { convertAnthropicTools } from './convert-tools.js';
import { toBotError, type SdkErrorClasses } from './provider-errors.js';
import { readModelStream } from './read-model-stream.js';

const ANTHROPIC_ERRORS: SdkErrorClasses = Anthropic;

/**
 * A model behind the Anthropic Messages API. Retries (408/409/429/5xx/529 and connection
 * failures, honouring `retry-after-ms` / `Retry-After`) are the SDK's, `config.maxRetries` times;
 * a wait over a minute is surfaced at once instead (see bounded-retry-fetch.ts).
 */
export function createAnthropicModel(config: LlmConfig): ChatModel {
  const client = new Anthropic({
    apiKey: config.apiKey,
    baseURL: config.baseUrl,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    fetch: boundedRetryFetch(),
  });
  return {
    provider: 'anthropic',
    model: config.model,
    contextWindow: config.contextWindow,
    maxOutputTokens: config.maxOutputTokens,
    stream: (request) => (config.stream ? streamMessage(client, config, request) : completeOnce(client, config, request)),
  };
}

function streamMessage(client: Anthropic, config: LlmConfig, request: ChatRequest): AsyncIterable<ModelStreamEvent> {
  return readModelStream({
    provider: 'anthropic',
    sdk: ANTHROPIC_ERRORS,
    // The raw event stream rather than `messages.stream()`: that helper parses tool input as it
    // arrives and fails the stream on input that is not JSON, which we keep and let the agent report.
    open: (signal) => client.messages.create({ ...buildParams(config, request), stream: true }, { signal }),
    assembler: new AnthropicStreamAssembler(),
    signal: request.signal,
    idleTimeoutMs: config.timeoutMs,
  });
}

async function* completeOnce(client: Anthropic, config: LlmConfig, request: ChatRequest): AsyncGenerator<ModelStreamEvent> {
  if (request.signal?.aborted) throw new BotError('aborted', 'anthropic request aborted', { cause: request.signal.reason });
  let message;
  try {
    message = await client.messages.create({ ...buildParams(config, request), stream: false }, { signal: request.signal });
  } catch (error) {
    throw toBotError(error, { provider: 'anthropic', sdk: ANTHROPIC_ERRORS, signal: request.signal });
  }
  yield finishFromMessage(message);
}

export function buildParams(config: LlmConfig, request: ChatRequest): MessageCreateParamsBase {
  const converted = request.tools?.length ? convertAnthropicTools(request.tools) : undefined;
  // The API rejects tool_use / tool_result blocks in a request without tool definitions,
  // so `none` keeps the definitions and forbids their use instead.
  const sendTools = converted && (request.toolChoice !== 'none' || hasToolBlocks(request.messages));
  const cached = withCacheBreakpoints(request.system, sendTools ? converted : undefined, convertAnthropicMessages(request.messages));
  const params: MessageCreateParamsBase = {
    model: config.model,
    max_tokens: outputCapOf(config.maxOutputTokens, request),
    messages: cached.messages,
  };
  if (request.system) params.system = cached.system;
  if (sendTools && cached.tools) {
    params.tools = cached.tools;
    if (request.toolChoice === 'none') params.tool_choice = { type: 'none' };
  }
  // No `temperature`: API version 2026-10-21 (this SDK's) has dropped sampling parameters.
  return params;
}
