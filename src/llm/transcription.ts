import type { Usage } from './chat-model.js';
import { callOpenAi, loadOpenAiSdk, openAiClient } from './openai-sdk.js';
import { transcriptionCostOf, type ModelPrice } from './pricing.js';

export interface TranscriptionConfig {
  /** OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
}

/** A transcript with what it was billed: tokens (gpt-4o-*-transcribe) or seconds of audio (whisper-1), and its cost when priced. */
export interface Transcription {
  text: string;
  usage?: Usage | undefined;
  seconds?: number | undefined;
  costUsd?: number | undefined;
}

/**
 * A voice note or audio file → its words, through the OpenAI-compatible `POST {baseUrl}/audio/transcriptions`.
 * Failures are `BotError`s (provider-errors.ts).
 */
export type Transcriber = (audio: { bytes: Buffer; fileName: string; mimeType: string }, signal?: AbortSignal) => Promise<Transcription>;

/** `prices`: LLM_PRICES, over the built-in transcription prices (pricing.ts). The SDK loads on the first voice message. */
export function createTranscriber(config: TranscriptionConfig, prices: Record<string, ModelPrice> = {}): Transcriber {
  // one attempt per turn attempt: the turn itself is retried, and a failed transcription is told to the user
  let client: ReturnType<typeof openAiClient> | undefined;
  return async (audio, signal) => {
    client ??= openAiClient({ apiKey: config.apiKey, baseUrl: config.baseUrl, timeoutMs: 120_000, maxRetries: 1 });
    const [openai, { toFile }] = await Promise.all([client, loadOpenAiSdk()]);
    const result = await callOpenAi(signal, async () => {
      const file = await toFile(audio.bytes, audio.fileName, { type: audio.mimeType });
      return openai.audio.transcriptions.create({ file, model: config.model }, signal ? { signal } : {});
    });
    const usage = result.usage?.type === 'tokens' ? { inputTokens: result.usage.input_tokens, outputTokens: result.usage.output_tokens } : undefined;
    const seconds = result.usage?.type === 'duration' ? result.usage.seconds : undefined;
    return { text: result.text.trim(), usage, seconds, costUsd: transcriptionCostOf(config.model, { usage, seconds }, prices) };
  };
}
