import { callOpenAi, openAiClient } from './openai-sdk.js';

export interface EmbeddingConfig {
  model: string;
  apiKey: string;
  baseUrl: string | undefined;
}

export interface Embedder {
  readonly model: string;
  /** One vector per text, in input order. Failures are `BotError`s (provider-errors.ts). */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

const EMBEDDING_TIMEOUT_MS = 15_000;

/** Embeddings through the OpenAI SDK (`EMBEDDING_MODEL`, with OPENAI_API_KEY / OPENAI_BASE_URL), loaded on the first call. */
export function createOpenAiEmbedder(config: EmbeddingConfig): Embedder {
  let client: ReturnType<typeof openAiClient> | undefined;
  return {
    model: config.model,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      client ??= openAiClient({ apiKey: config.apiKey, baseUrl: config.baseUrl, timeoutMs: EMBEDDING_TIMEOUT_MS, maxRetries: 2 });
      const openai = await client;
      const response = await callOpenAi(signal, () => openai.embeddings.create({ model: config.model, input: texts, encoding_format: 'float' }, signal ? { signal } : {}));
      return [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
    },
  };
}
