import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the double saw it. */
export interface RecordedRequest {
  /** 0-based arrival order since the double started. */
  index: number;
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON (the raw text when it is not JSON). `any` so tests can reach into it without ceremony. */
  body: any;
  rawBody: string;
  /** The body's bytes as sent (multipart uploads carry binary files the UTF-8 text would mangle). */
  rawBytes: Buffer;
  /** `Date.now()` when the request arrived, and when its response ended or the connection closed. */
  receivedAt: number;
  endedAt: number | undefined;
  status: number | undefined;
  /** The client went away before the response was complete (an abort or a client timeout). */
  aborted: boolean;
}

/** One request/response pair, handed to the double's handler. */
export interface Exchange {
  request: RecordedRequest;
  response: ServerResponse;
  /** Aborts when the client disconnects before the response is complete. */
  clientGone: AbortSignal;
  /** Waits `ms`; resolves false early if the client goes away meanwhile. */
  pause(ms: number): Promise<boolean>;
  /** Resolves when the client goes away (for "hang until aborted"). */
  untilClientGone(): Promise<void>;
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Starts a `text/event-stream` response. */
  openEventStream(): void;
  /** Writes one server-sent event (`event:` line only when given). */
  sendEvent(data: string, event?: string): Promise<void>;
  /** Breaks the connection mid-response; recorded as a server-side cut, not a client abort. */
  cut(): Promise<void>;
  /** Sends the headers and half of a JSON body (its full length promised), then cuts. */
  cutHalfway(status: number, body: unknown): Promise<void>;
}

export type ExchangeHandler = (exchange: Exchange) => Promise<void> | void;

export interface HttpDouble {
  /** `http://127.0.0.1:PORT` */
  url: string;
  requests: RecordedRequest[];
  /** Requests whose response has not ended yet. */
  readonly inFlight: number;
  /** The most requests in flight at once since start (or `resetCounters()`). */
  readonly maxInFlight: number;
  resetCounters(): void;
  /**
   * Ends every pause under way now, as if its time were up (a latency of 30 s set to keep turns in flight, then
   * lowered: the requests already waiting answer now instead of waiting out the old latency).
   */
  endPauses(): void;
  /** Forgets the recorded requests and resets the counters (between tests sharing one double). */
  reset(): void;
  /** Resolves once `predicate()` holds, checked on every request change; rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves with the first `count` requests once they have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

/** Starts a node:http server on 127.0.0.1 (a free port) that records every request and hands it to `handler`. */
export async function startHttpDouble(handler: ExchangeHandler): Promise<HttpDouble> {
  const requests: RecordedRequest[] = [];
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  let inFlight = 0;
  let maxInFlight = 0;
  let received = 0;

  const server = createServer((incoming, response) => {
    void (async () => {
      const rawBytes = await readBody(incoming).catch(() => undefined);
      if (rawBytes === undefined) return;
      const rawBody = rawBytes.toString('utf8');
      const request: RecordedRequest = {
        index: received++,
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        body: parseJson(rawBody),
        rawBody,
        rawBytes,
        receivedAt: Date.now(),
        endedAt: undefined,
        status: undefined,
        aborted: false,
      };
      requests.push(request);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const exchange = createExchange(request, response, changes, () => {
        inFlight -= 1;
        changes.emit('change');
      });
      changes.emit('change');
      try {
        await handler(exchange);
      } catch (error) {
        if (!response.headersSent) exchange.json(500, { error: { message: `double failed: ${String(error)}` } });
        else response.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const waitFor = (predicate: () => boolean, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      if (predicate()) return resolve();
      const timer = setTimeout(() => {
        changes.off('change', check);
        reject(new Error(`http double: condition not met within ${timeoutMs} ms`));
      }, timeoutMs);
      function check() {
        if (!predicate()) return;
        clearTimeout(timer);
        changes.off('change', check);
        resolve();
      }
      changes.on('change', check);
    });

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    resetCounters() {
      maxInFlight = inFlight;
    },
    endPauses() {
      changes.emit('end-pauses');
    },
    reset() {
      requests.length = 0;
      maxInFlight = inFlight;
    },
    waitFor,
    async waitForRequests(count, timeoutMs) {
      await waitFor(() => requests.length >= count, timeoutMs);
      return requests.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function createExchange(request: RecordedRequest, response: ServerResponse, changes: EventEmitter, onClosed: () => void): Exchange {
  const gone = new AbortController();
  let cutByServer = false;
  response.on('close', () => {
    request.endedAt = Date.now();
    if (!response.writableFinished && !cutByServer) {
      request.aborted = true;
      gone.abort();
    }
    onClosed();
  });
  const pause = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (gone.signal.aborted) return resolve(false);
      const onEnd = () => {
        clearTimeout(timer);
        gone.signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      const timer = setTimeout(() => {
        gone.signal.removeEventListener('abort', onAbort);
        changes.off('end-pauses', onEnd);
        resolve(true);
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        changes.off('end-pauses', onEnd);
        resolve(false);
      };
      gone.signal.addEventListener('abort', onAbort, { once: true });
      changes.once('end-pauses', onEnd);
    });

  return {
    request,
    response,
    clientGone: gone.signal,
    pause,
    untilClientGone: () =>
      new Promise<void>((resolve) => {
        if (gone.signal.aborted) resolve();
        else gone.signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    json(status, body, headers = {}) {
      request.status = status;
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    },
    openEventStream() {
      request.status = 200;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      response.flushHeaders();
    },
    sendEvent(data, event) {
      const text = `${event ? `event: ${event}\n` : ''}data: ${data}\n\n`;
      return new Promise<void>((resolve) => {
        if (response.destroyed) return resolve();
        response.write(text, () => resolve());
      });
    },
    async cut() {
      cutByServer = true;
      // Let the bytes already written reach the client before the connection drops.
      await new Promise((resolve) => setTimeout(resolve, 20));
      response.socket?.destroy();
    },
    async cutHalfway(status, body) {
      const text = JSON.stringify(body);
      request.status = status;
      response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      response.write(text.slice(0, Math.floor(text.length / 2)));
      await this.cut();
    },
  };
}

function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
