import { StringDecoder } from 'node:string_decoder';
import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { ServerSentEventParser } from './server-sent-events.js';

/**
 * The chunks of a streamed Chat Completions answer, read from the SDK's raw response (`.asResponse()`: the SDK
 * still builds the request, retries it and turns an error status into its `APIError`). The SDK's own reader
 * stacks four async generators and a `Promise.race` on every event, about 7 % of a message's CPU; this reads
 * each piece the socket delivers once and parses its events in one synchronous pass. What the SDK's reader
 * does, this does: chunks until `[DONE]`, an `error` event or an `error` field as the SDK's `APIError`,
 * malformed JSON as a `SyntaxError`, and a quiet end once `signal` is aborted (the caller asks why it ended).
 */
export async function* openAiChunks(response: Response, signal: AbortSignal, sdk: Pick<typeof OpenAI, 'APIError'>): AsyncGenerator<ChatCompletionChunk> {
  if (!response.body) throw new sdk.APIError(undefined, undefined, 'Attempted to iterate over a response with no body', response.headers);
  const reader = response.body.getReader();
  // a StringDecoder, not a TextDecoder: making the latter costs ICU's converter, about 2 % of a message's CPU
  const decoder = new StringDecoder('utf8');
  const parser = new ServerSentEventParser();
  try {
    while (!signal.aborted) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of parser.push(decoder.write(value))) {
        if (signal.aborted || event.data === '[DONE]') return;
        yield chunkOf(event.event, event.data, response.headers, sdk);
      }
    }
  } finally {
    // what is left after [DONE] drains and the connection is kept (see core/http-fetch.ts); an abort has ended it
    void reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function chunkOf(event: string | undefined, data: string, headers: Headers, sdk: Pick<typeof OpenAI, 'APIError'>): ChatCompletionChunk {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
  }
  const record = parsed as { error?: unknown } | null;
  if (event === 'error') throw new sdk.APIError(undefined, (record?.error ?? record) as object | undefined, undefined, headers);
  if (record?.error) throw new sdk.APIError(undefined, record.error as object, undefined, headers);
  return parsed as ChatCompletionChunk;
}
