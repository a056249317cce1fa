import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotError } from '../../src/core/errors.js';
import { createOpenAiEmbedder, createTranscriber } from '../../src/llm/index.js';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double.js';

let openai: OpenAiDouble;
beforeAll(async () => {
  openai = await startOpenAiDouble();
});
afterAll(async () => {
  await openai.close();
});

const audio = { bytes: Buffer.from('OggS fake voice'), fileName: 'audio.ogg', mimeType: 'audio/ogg' };

/** A port nothing listens on: the connection is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('transcription and embeddings through llm/', () => {
  it('transcribes through the OpenAI-compatible endpoint and prices the tokens', async () => {
    const transcribe = createTranscriber({ model: 'gpt-4o-mini-transcribe', apiKey: 'sk-test', baseUrl: openai.baseUrl });
    const result = await transcribe(audio);
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.usage?.inputTokens).toBeGreaterThan(0);
    expect(openai.transcriptions.at(-1)).toMatchObject({ model: 'gpt-4o-mini-transcribe', fileName: 'audio.ogg' });
  });

  it('turns a failed transcription into a typed error: a 503 may be retried, a 400 may not', async () => {
    const transcribe = createTranscriber({ model: 'whisper-1', apiKey: 'sk-test', baseUrl: openai.baseUrl });
    openai.transcriber = () => ({ status: 503 });
    const unavailable = await transcribe(audio).catch((error: unknown) => error);
    openai.transcriber = () => ({ status: 400 });
    const refused = await transcribe(audio).catch((error: unknown) => error);
    openai.reset();
    expect(unavailable).toBeInstanceOf(BotError);
    expect((unavailable as BotError).isRetryable).toBe(true);
    expect(refused).toBeInstanceOf(BotError);
    expect((refused as BotError).isRetryable).toBe(false);
  });

  it('turns an embedding call that cannot connect into a retryable typed error', async () => {
    const embedder = createOpenAiEmbedder({ model: 'text-embedding-3-small', apiKey: 'sk-test', baseUrl: `http://127.0.0.1:${await closedPort()}/v1` });
    const error = await embedder.embed(['hello']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BotError);
    expect((error as BotError).isRetryable).toBe(true);
  }, 30_000);
});
