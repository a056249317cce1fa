import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { BufferedResponse, headersOf } from './buffered-response.js';

/**
 * `fetch` over node:http(s) and their keep-alive agents, for the clients that take a `fetch` (the OpenAI and
 * Anthropic SDKs, grammY). Every turn makes two to four such calls, and the fetch algorithm is the costly part:
 * measured on the bench machine, Node's own fetch (undici's) takes about 580 µs of CPU for a small JSON POST,
 * node-fetch (grammY's default) 370 µs, and this 230 µs (290 µs with a streamed body).
 *
 * It speaks what those clients send: a string or byte body (or a Node stream: grammY's multipart uploads) to
 * an http(s) URL. Anything else (a FormData, Blob or web-stream body, a Request object) goes to the platform's
 * fetch. Like fetch, it rejects with the signal's reason on abort and with `TypeError('fetch failed')` (the
 * cause attached) when the connection fails. Unlike fetch, it neither follows redirects nor asks for a
 * compressed answer (a compressed one is still decoded): the APIs it serves do neither.
 */
export const httpFetch: typeof fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined;
  const body = init?.body;
  if (url === undefined || !spoken(url, body)) return fetch(input, init);
  return send(url, init ?? {}, body as SimpleBody);
};

type SimpleBody = string | Uint8Array | Readable | null | undefined;

/** Statuses whose answer has no body (a Response refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function spoken(url: string, body: unknown): boolean {
  if (!url.startsWith('http://') && !url.startsWith('https://')) return false;
  return body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof Readable;
}

function send(url: string, init: RequestInit, body: SimpleBody): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const method = (init.method ?? 'GET').toUpperCase();
  // no content-length of our own: `request.end(body)` counts a string or byte body's length and sends it
  const headers = plainHeaders(init.headers);
  return new Promise<Response>((resolve, reject) => {
    const options = target(url);
    options.method = method;
    options.headers = headers;
    const request = (url.startsWith('https:') ? httpsRequest : httpRequest)(options);
    let response: IncomingMessage | undefined;
    const onAbort = () => {
      const reason = signal!.reason as unknown;
      request.destroy(reason as Error);
      response?.destroy(reason as Error);
      reject(reason);
    };
    const settle = () => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => {
      settle();
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    request.once('response', (incoming) => {
      response = incoming;
      incoming.once('close', settle);
      const status = incoming.statusCode ?? 0;
      const statusText = incoming.statusMessage ?? '';
      if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
        incoming.resume();
        resolve(new Response(null, { status, statusText, headers: headersOf(incoming.rawHeaders) }));
        return;
      }
      const content = decoded(incoming);
      if (/\bjson\b/i.test(incoming.headers['content-type'] ?? '')) {
        // consumed whole by every caller: bytes in one piece are cheaper than a stream of them
        collect(content).then(
          (bytes) => resolve(new BufferedResponse(bytes, { status, statusText, rawHeaders: incoming.rawHeaders, url })),
          (error: unknown) => reject(signal?.aborted ? signal.reason : error),
        );
      } else {
        resolve(new Response(webStream(content, incoming, signal), { status, statusText, headers: headersOf(incoming.rawHeaders) }));
      }
    });
    if (body instanceof Readable) {
      body.once('error', (error) => request.destroy(error));
      body.pipe(request);
    } else {
      request.end(body ?? undefined);
    }
  });
}

/** Parsed origins (scheme, host and port), by their text: the APIs a process calls are a handful. */
const origins = new Map<string, Origin>();

/**
 * What node:http reads of a parsed origin. Only these are copied into each request's options: node:http copies
 * the options twice more (the request, then its agent), a field per field, so every one left out counts.
 */
interface Origin {
  protocol: string | null;
  hostname: string | null;
  port: number | undefined;
}
const ORIGINS_LIMIT = 64;
/**
 * A path the URL parser would leave as it is, which is what the SDKs' URLs carry: printable ASCII without `#` (a
 * fragment is not sent) or `\` (read as `/`), and no dot segment (resolved away).
 */
const PLAIN_PATH = /^\/[\x21\x22\x24-\x5b\x5d-\x7e]*$/;

/**
 * Where a request goes, as node:http's options. Given a URL string, node:http parses it whole at every call (about
 * 1 % of a message's CPU); here each origin is parsed once and the path is taken as it is. A URL with anything
 * else (credentials, a path that needs escaping) is parsed as node:http would.
 */
function target(url: string): RequestOptions {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const origin = pathStart < 0 ? url : url.slice(0, pathStart);
  const path = pathStart < 0 ? '/' : url.slice(pathStart);
  if (origin.includes('@') || !PLAIN_PATH.test(path) || path.includes('/.')) return urlToHttpOptions(new URL(url));
  let parsed = origins.get(origin);
  if (!parsed) {
    if (origins.size >= ORIGINS_LIMIT) origins.clear();
    const { protocol, hostname, port } = urlToHttpOptions(new URL(origin));
    parsed = { protocol: protocol ?? null, hostname: hostname ?? null, port: port === undefined || port === '' ? undefined : Number(port) };
    origins.set(origin, parsed);
  }
  return { protocol: parsed.protocol, hostname: parsed.hostname, port: parsed.port, path };
}

function plainHeaders(headers: RequestInit['headers']): OutgoingHttpHeaders {
  const plain: OutgoingHttpHeaders = {};
  if (headers === undefined) return plain;
  const entries = headers instanceof Headers || Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of entries as Iterable<[string, string]>) {
    const key = name.toLowerCase();
    const before = plain[key];
    plain[key] = before === undefined ? value : `${String(before)}, ${value}`;
  }
  return plain;
}

function decoded(incoming: IncomingMessage): Readable {
  const encoding = incoming.headers['content-encoding']?.trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined;
  if (!decoder) return incoming;
  incoming.once('error', (error) => decoder.destroy(error));
  return incoming.pipe(decoder);
}

function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.once('aborted', () => reject(new TypeError('terminated', { cause: new Error('the connection closed mid-answer') })));
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
}

/**
 * The answer as a web stream, read as it arrives. A reader that cancels (an SDK done after its `[DONE]` event)
 * lets the rest drain instead of destroying the connection, so the socket goes back to the keep-alive pool;
 * an abort through the signal still destroys it.
 */
function webStream(source: Readable, incoming: IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const finish = (error?: unknown) => {
        if (!open) return;
        open = false;
        if (error === undefined) controller.close();
        else controller.error(signal?.aborted ? signal.reason : error);
      };
      source.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once('end', () => finish());
      source.on('error', (error) => finish(error));
      incoming.once('aborted', () => finish(new TypeError('terminated', { cause: new Error('the connection closed mid-answer') })));
    },
    pull() {
      source.resume();
    },
    cancel() {
      open = false;
      source.resume();
    },
  });
}
