import OpenAI, { toFile } from 'openai';
import type { Usage } from '../llm/chat-model.js';
import { transcriptionCostOf, type ModelPrice } from '../llm/pricing.js';
import type { TranscribeConfig } from './media-config.js';

/** A transcript with what it was billed: tokens (gpt-4o-*-transcribe) or seconds of audio (whisper-1), and its cost when priced. */
export interface Transcription {
  text: string;
  usage?: Usage | undefined;
  seconds?: number | undefined;
  costUsd?: number | undefined;
}

/** A voice note or audio file → its words, through the OpenAI-compatible `POST {baseUrl}/audio/transcriptions`. */
export type Transcriber = (audio: { bytes: Buffer; fileName: string; mimeType: string }, signal?: AbortSignal) => Promise<Transcription>;

/** `prices`: LLM_PRICES, over the built-in transcription prices (src/llm/pricing.ts). */
export function createTranscriber(config: TranscribeConfig, prices: Record<string, ModelPrice> = {}): Transcriber {
  // one attempt per turn attempt: the turn itself is retried, and a failed transcription is told to the user
  const client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseUrl, maxRetries: 1, timeout: 120_000 });
  return async (audio, signal) => {
    const file = await toFile(audio.bytes, audio.fileName, { type: audio.mimeType });
    const result = await client.audio.transcriptions.create({ file, model: config.model }, signal ? { signal } : {});
    const usage = result.usage?.type === 'tokens' ? { inputTokens: result.usage.input_tokens, outputTokens: result.usage.output_tokens } : undefined;
    const seconds = result.usage?.type === 'duration' ? result.usage.seconds : undefined;
    return { text: result.text.trim(), usage, seconds, costUsd: transcriptionCostOf(config.model, { usage, seconds }, prices) };
  };
}
