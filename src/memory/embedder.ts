import OpenAI from 'openai';

export interface EmbeddingConfig {
  model: string;
  apiKey: string;
  baseUrl: string | undefined;
}

export interface Embedder {
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

const EMBEDDING_TIMEOUT_MS = 15_000;

/** Embeddings through the OpenAI SDK (`EMBEDDING_MODEL`, with OPENAI_API_KEY / OPENAI_BASE_URL). */
export function createOpenAiEmbedder(config: EmbeddingConfig): Embedder {
  const client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseUrl, timeout: EMBEDDING_TIMEOUT_MS, maxRetries: 2 });
  return {
    model: config.model,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const response = await client.embeddings.create({ model: config.model, input: texts, encoding_format: 'float' }, signal ? { signal } : {});
      return [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
    },
  };
}
