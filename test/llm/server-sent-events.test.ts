import OpenAI from 'openai';
import { Stream } from 'openai/streaming';
import { describe, expect, it } from 'vitest';
import { openAiChunks } from '../../src/llm/openai-chunk-stream.js';
import { ServerSentEventParser, type ServerSentEvent } from '../../src/llm/server-sent-events.js';

function parseInPieces(text: string, cuts: number[]): ServerSentEvent[] {
  const parser = new ServerSentEventParser();
  const events: ServerSentEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    events.push(...parser.push(text.slice(from, cut)));
    from = cut;
  }
  return events;
}

describe('ServerSentEventParser: text/event-stream as the HTML standard parses it', () => {
  it('reads every line ending, comments, fields without a value, one dropped space, joined data lines, and names', () => {
    const text = [
      ': a comment\n',
      'data: one\n\n',
      'event: named\r\ndata:two\r\ndata:  three\r\n\r\n',
      'data\rdata: four\r\r',
      'id: 7\nretry: 10\nevent: nothing\n\n',
      'data:\n\n',
      'data: unfinished',
    ].join('');
    const expected = [
      { event: undefined, data: 'one' },
      { event: 'named', data: 'two\n three' },
      { event: undefined, data: '\nfour' },
      { event: undefined, data: '' },
    ];
    expect(parseInPieces(text, [])).toEqual(expected);
    // cut anywhere, twice (a CRLF split across pieces included), the events are the same
    for (let first = 0; first <= text.length; first += 1) {
      for (const second of [first, Math.min(text.length, first + 1), Math.min(text.length, first + 7)]) {
        expect(parseInPieces(text, [first, second]), `cut at ${first} and ${second}`).toEqual(expected);
      }
    }
  });

  it('drops a byte order mark opening the stream, and only there', () => {
    const parser = new ServerSentEventParser();
    expect(parser.push('')).toEqual([]);
    expect(parser.push('\ufeffdata: a\n\n\ufeffdata: b\n\n')).toEqual([{ event: undefined, data: 'a' }]);
  });

  it('dispatches an event only once its blank line arrives', () => {
    const parser = new ServerSentEventParser();
    expect(parser.push('data: {"a":1}\n')).toEqual([]);
    expect(parser.push('\r')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: undefined, data: '{"a":1}' }]);
  });
});

/** A response whose body arrives in the given byte pieces. */
function responseOf(pieces: Uint8Array[]): Response {
  let index = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < pieces.length) controller.enqueue(pieces[index++]!);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  const response = new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-request-id': 'r1' } });
  Object.defineProperty(response, 'cancelled', { get: () => cancelled });
  return response;
}

function cutBytes(text: string, size: number): Uint8Array[] {
  const bytes = Buffer.from(text);
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(new Uint8Array(bytes.subarray(at, at + size)));
  return pieces;
}

async function ours(pieces: Uint8Array[], signal = new AbortController().signal): Promise<{ chunks: unknown[]; error?: unknown }> {
  const chunks: unknown[] = [];
  try {
    for await (const chunk of openAiChunks(responseOf(pieces), signal, OpenAI)) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

async function theSdks(pieces: Uint8Array[]): Promise<{ chunks: unknown[]; error?: unknown }> {
  const chunks: unknown[] = [];
  try {
    for await (const chunk of Stream.fromSSEResponse(responseOf(pieces), new AbortController())) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

function describeError(error: unknown): unknown {
  if (error === undefined) return undefined;
  const { constructor, message } = error as Error;
  return { kind: constructor.name, message, ...(error instanceof OpenAI.APIError ? { error: error.error, requestId: error.requestID } : {}) };
}

const chunk = (content: string, finish: string | null = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

const STREAMS: Record<string, string> = {
  'an answer with usage, then [DONE] and more after it': `data: ${chunk('Héllo 👋 ')}\n\ndata: ${chunk('wörld', 'stop')}\n\ndata: {"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\ndata: [DONE]\n\ndata: ${chunk('never read')}\n\n`,
  'a byte order mark first': `\ufeffdata: ${chunk('a', 'stop')}\n\ndata: [DONE]\n\n`,
  'CRLF lines and a keep-alive comment': `: ping\r\n\r\ndata: ${chunk('a')}\r\n\r\ndata: ${chunk('b', 'stop')}\r\n\r\ndata: [DONE]\r\n\r\n`,
  'an error event': `data: ${chunk('partial')}\n\nevent: error\ndata: {"error":{"message":"overloaded","type":"server_error"}}\n\n`,
  'an error field': `data: ${chunk('partial')}\n\ndata: {"error":{"message":"The server had an error","type":"server_error","code":null}}\n\n`,
  'malformed JSON': `data: ${chunk('partial')}\n\ndata: {"choices": [\n\n`,
};

describe('openAiChunks: a streamed Chat Completions answer read as the SDK reads it', () => {
  for (const [name, text] of Object.entries(STREAMS)) {
    it(`yields and fails as the SDK's own stream does: ${name}`, async () => {
      for (const size of [1, 2, 3, 5, 64, 100_000]) {
        const [mine, sdk] = await Promise.all([ours(cutBytes(text, size)), theSdks(cutBytes(text, size))]);
        // the SDK writes finish_reason null where a chunk has none; ours passes the chunk as sent (the assembler reads either)
        expect(mine.chunks, `in pieces of ${size} bytes`).toEqual(sdk.chunks);
        expect(describeError(mine.error), `in pieces of ${size} bytes`).toEqual(describeError(sdk.error));
      }
    });
  }

  it('ends after the last whole event when the stream is cut mid-event (the reader reports the cut, not bad JSON)', async () => {
    const text = `data: ${chunk('partial')}\n\ndata: {"choi`;
    for (const size of [1, 7, 100_000]) {
      const [mine, sdk] = await Promise.all([ours(cutBytes(text, size)), theSdks(cutBytes(text, size))]);
      expect(mine).toEqual({ chunks: [JSON.parse(chunk('partial'))] });
      // the SDK parses the fragment at the end: a malformed answer where the standard drops an unfinished event
      expect(sdk.chunks).toEqual(mine.chunks);
      expect(describeError(sdk.error)).toMatchObject({ kind: 'SyntaxError' });
    }
  });

  it('stops quietly once its signal is aborted, and lets go of the body', async () => {
    const controller = new AbortController();
    const response = responseOf(cutBytes(STREAMS['an answer with usage, then [DONE] and more after it']!, 10));
    const seen: unknown[] = [];
    for await (const value of openAiChunks(response, controller.signal, OpenAI)) {
      seen.push(value);
      controller.abort();
    }
    expect(seen).toHaveLength(1);
    expect((response as Response & { cancelled: boolean }).cancelled).toBe(true);
  });
});
