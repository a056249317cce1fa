import OpenAI, { toFile } from 'openai';
import type { TranscribeConfig } from './media-config.js';

/** A voice note or audio file → its words, through the OpenAI-compatible `POST {baseUrl}/audio/transcriptions`. */
export type Transcriber = (audio: { bytes: Buffer; fileName: string; mimeType: string }, signal?: AbortSignal) => Promise<string>;

export function createTranscriber(config: TranscribeConfig): Transcriber {
  // one attempt per turn attempt: the turn itself is retried, and a failed transcription is told to the user
  const client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseUrl, maxRetries: 1, timeout: 120_000 });
  return async (audio, signal) => {
    const file = await toFile(audio.bytes, audio.fileName, { type: audio.mimeType });
    const result = await client.audio.transcriptions.create({ file, model: config.model }, signal ? { signal } : {});
    return result.text.trim();
  };
}
