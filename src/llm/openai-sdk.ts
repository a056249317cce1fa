import type OpenAI from 'openai';
import { boundedRetryFetch } from './bounded-retry-fetch.js';
import { toBotError } from './provider-errors.js';

type OpenAiModule = typeof import('openai');

let loading: Promise<OpenAiModule> | undefined;

/** The OpenAI SDK, loaded on the first call that needs it (never on the start-up path). */
export function loadOpenAiSdk(): Promise<OpenAiModule> {
  loading ??= import('openai');
  return loading;
}

/** A client for the non-chat endpoints (audio, embeddings): the SDK's retries, bounded as the chat models' are. */
export async function openAiClient(options: { apiKey: string; baseUrl: string | undefined; timeoutMs: number; maxRetries: number }): Promise<OpenAI> {
  const { default: OpenAISdk } = await loadOpenAiSdk();
  return new OpenAISdk({ apiKey: options.apiKey, baseURL: options.baseUrl, timeout: options.timeoutMs, maxRetries: options.maxRetries, fetch: boundedRetryFetch() });
}

/** Runs one call, turning whatever the SDK throws into a `BotError` (code, `isRetryable`, `retryAfterMs`). */
export async function callOpenAi<T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const { default: sdk } = await loadOpenAiSdk();
    throw toBotError(error, { provider: 'openai', sdk, signal });
  }
}
