import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { LlmConfig } from './llm-config.js';
import { BotError } from '../core/errors.js';
import { boundedRetryFetch } from './bounded-retry-fetch.js';
import { outputCapOf, type ChatModel, type ChatRequest, type ModelStreamEvent } from './chat-model.js';
import { convertOpenAiMessages } from './convert-openai-messages.js';
import { convertOpenAiTools } from './convert-tools.js';
import { openAiChunks } from './openai-chunk-stream.js';
import { openAiRequestBody } from './openai-request-body.js';
import { finishFromCompletion, OpenAiStreamAssembler } from './openai-stream-assembler.js';
import { toBotError, type SdkErrorClasses } from './provider-errors.js';
import { readModelStream } from './read-model-stream.js';

const OPENAI_ERRORS: SdkErrorClasses = OpenAI;

/**
 * A model behind the Chat Completions API: OpenAI itself or any compatible server at
 * `config.baseUrl`. Retries (408/409/429/5xx and connection failures, honouring
 * `retry-after-ms` / `Retry-After`) are the SDK's, `config.maxRetries` times; a wait over
 * a minute is surfaced at once instead (see bounded-retry-fetch.ts).
 */
export function createOpenAiModel(config: LlmConfig): ChatModel {
  const client = new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseUrl,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    fetch: boundedRetryFetch(),
  });
  return {
    provider: 'openai',
    model: config.model,
    contextWindow: config.contextWindow,
    maxOutputTokens: config.maxOutputTokens,
    stream: (request) => (config.stream ? streamCompletion(client, config, request) : completeOnce(client, config, request)),
  };
}

function streamCompletion(client: OpenAI, config: LlmConfig, request: ChatRequest): AsyncIterable<ModelStreamEvent> {
  return readModelStream({
    provider: 'openai',
    sdk: OPENAI_ERRORS,
    open: async (signal) => {
      const params = { ...buildParams(config, request), stream: true as const, stream_options: { include_usage: true } };
      const response = await client.chat.completions.create(params, { signal, ...encoded(params) }).asResponse();
      return openAiChunks(response, signal, OpenAI);
    },
    assembler: new OpenAiStreamAssembler(),
    signal: request.signal,
    idleTimeoutMs: config.timeoutMs,
  });
}

async function* completeOnce(client: OpenAI, config: LlmConfig, request: ChatRequest): AsyncGenerator<ModelStreamEvent> {
  if (request.signal?.aborted) throw new BotError('aborted', 'openai request aborted', { cause: request.signal.reason });
  let completion;
  try {
    const params = { ...buildParams(config, request), stream: false as const };
    completion = await client.chat.completions.create(params, { signal: request.signal, ...encoded(params) });
  } catch (error) {
    throw toBotError(error, { provider: 'openai', sdk: OPENAI_ERRORS, signal: request.signal });
  }
  yield finishFromCompletion(completion);
}

/** The request options that send `params` as JSON we encoded (see openai-request-body.ts). */
function encoded(params: ChatCompletionCreateParamsBase): { body: Buffer; headers: { 'content-type': string } } {
  return { body: openAiRequestBody(params), headers: { 'content-type': 'application/json' } };
}

export function buildParams(config: LlmConfig, request: ChatRequest): ChatCompletionCreateParamsBase {
  const params: ChatCompletionCreateParamsBase = {
    model: config.model,
    messages: convertOpenAiMessages(request.system, request.messages),
  };
  // `none` sends no tools at all rather than tool_choice "none": fewer tokens, and every compatible server understands it.
  if (request.toolChoice !== 'none' && request.tools?.length) params.tools = convertOpenAiTools(request.tools);
  // Every request carries a cap, so one runaway answer cannot outgrow its budget reservation.
  const cap = outputCapOf(config.maxOutputTokens, request);
  params.max_completion_tokens = cap;
  if (!refusesMaxTokens(config.baseUrl)) params.max_tokens = cap;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.cacheKey !== undefined && usesOfficialApi(config.baseUrl)) params.prompt_cache_key = request.cacheKey;
  return params;
}

/**
 * OpenAI deprecated `max_tokens`: its reasoning models (on api.openai.com and on Azure) reject it, so those
 * get only `max_completion_tokens`; many compatible servers only know `max_tokens`: they get both, and each
 * reads the one it knows.
 */
function refusesMaxTokens(baseUrl: string | undefined): boolean {
  if (usesOfficialApi(baseUrl)) return true;
  return hostnameOf(baseUrl!).endsWith('.openai.azure.com');
}

/** The OpenAI API itself (not a compatible server): it takes `prompt_cache_key`. */
function usesOfficialApi(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined) return true;
  return hostnameOf(baseUrl).endsWith('openai.com');
}

/** Base URLs' host names ('' for one that does not parse), by URL: a process has one or two, asked about every call. */
const hostnames = new Map<string, string>();

function hostnameOf(baseUrl: string): string {
  let hostname = hostnames.get(baseUrl);
  if (hostname === undefined) {
    hostname = URL.canParse(baseUrl) ? new URL(baseUrl).hostname : '';
    if (hostnames.size >= 64) hostnames.clear();
    hostnames.set(baseUrl, hostname);
  }
  return hostname;
}
