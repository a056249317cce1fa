import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BufferedResponse } from '../../src/core/buffered-response.js';
import { httpFetch } from '../../src/core/http-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: the same port, the same keep-alive connection. */
  port: number;
}

let server: Server;
let base: string;
let handler: (request: IncomingMessage, response: ServerResponse, body: string) => void;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body, port: request.socket.remotePort ?? 0 });
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'r1' });
  response.end(JSON.stringify(value));
}

describe('httpFetch: fetch over node:http for the SDKs', () => {
  it('posts a string body with its length and headers in any of fetch’s shapes, and answers a JSON body', async () => {
    handler = (_request, response, body) => json(response, 201, { echoed: JSON.parse(body) });
    for (const headers of [new Headers({ 'Content-Type': 'application/json', 'X-Extra': 'a' }), { 'content-type': 'application/json', 'x-extra': 'a' }, [['content-type', 'application/json'], ['x-extra', 'a']] as [string, string][]]) {
      const response = await httpFetch(`${base}/bot1/sendMessage`, { method: 'POST', headers, body: JSON.stringify({ text: 'héllo' }) });
      expect(response.status).toBe(201);
      expect(response.ok).toBe(true);
      expect(response.headers.get('x-request-id')).toBe('r1');
      expect(response.url).toBe(`${base}/bot1/sendMessage`);
      // read from the bytes in hand, not through a web stream (see BufferedResponse)
      expect(response).toBeInstanceOf(BufferedResponse);
      expect(await response.json()).toEqual({ echoed: { text: 'héllo' } });
      await expect(response.json()).rejects.toThrow(TypeError);
    }
    expect(seen.map((request) => [request.method, request.url, request.headers['x-extra'], request.headers['content-length']])).toEqual(
      Array.from({ length: 3 }, () => ['POST', '/bot1/sendMessage', 'a', String(Buffer.byteLength(JSON.stringify({ text: 'héllo' })))]),
    );
    // one keep-alive connection served the three calls
    expect(new Set(seen.map((request) => request.port)).size).toBe(1);
  });

  it('sends the path and query of any URL as fetch would: kept as they are, escaped, fragments and dot segments resolved', async () => {
    handler = (_request, response) => json(response, 200, {});
    const urls = ['/bot1/getFile?file_id=a%20b&x=1', '/files/ü ber.txt?q=ä', '/v1/chat/completions#frag', '/a/b/../c', '/a\\b', ''];
    for (const path of urls) {
      const fetched = await fetch(`${base}${path}`);
      await fetched.arrayBuffer();
      const ours = await httpFetch(`${base}${path}`);
      await ours.arrayBuffer();
    }
    const pairs = seen.map((request) => request.url);
    // each URL reached the server as the platform's fetch sent it
    expect(pairs.filter((_url, index) => index % 2 === 1)).toEqual(pairs.filter((_url, index) => index % 2 === 0));
    expect(pairs.filter((_url, index) => index % 2 === 1)).toEqual(['/bot1/getFile?file_id=a%20b&x=1', '/files/%C3%BC%20ber.txt?q=%C3%A4', '/v1/chat/completions', '/a/c', '/a/b', '/']);
  });

  it('streams a server-sent-events body as it arrives, and a reader that cancels before the end leaves the connection reusable', async () => {
    let finish: () => void = () => {};
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
      finish = () => response.end('data: [DONE]\n\n');
    };
    const response = await httpFetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"n":1}\n\n');
    await reader.cancel();
    finish(); // the end arrives after the cancel: nothing may throw
    handler = (_request, reply) => json(reply, 200, { ok: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await (await httpFetch(`${base}/again`)).json()).toEqual({ ok: true });
    expect(seen.map((request) => request.url)).toEqual(['/v1/chat/completions', '/again']);
    expect(seen[1]!.port).toBe(seen[0]!.port);
  });

  it('rejects with the signal’s reason when aborted before the answer, and errors the body when aborted mid-stream', async () => {
    handler = () => {}; // never answers
    const early = new AbortController();
    const pending = httpFetch(`${base}/hang`, { signal: early.signal });
    setTimeout(() => early.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    };
    const late = new AbortController();
    const response = await httpFetch(`${base}/stream`, { signal: late.signal });
    const reader = response.body!.getReader();
    await reader.read();
    const reason = new Error('watchdog: no bytes for a while');
    late.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    await expect(httpFetch(`${base}/x`, { signal: late.signal })).rejects.toBe(reason);
  });

  it('fails like fetch when the connection is refused: TypeError "fetch failed" with the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await httpFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('decodes a gzip answer, gives a 204 no body, and errors a body cut mid-answer', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(JSON.stringify({ zipped: true })));
    };
    expect(await (await httpFetch(`${base}/gz`)).json()).toEqual({ zipped: true });

    handler = (_request, response) => {
      response.writeHead(204);
      response.end();
    };
    const empty = await httpFetch(`${base}/empty`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();

    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"cut":');
      setTimeout(() => response.socket?.destroy(), 10);
    };
    await expect(httpFetch(`${base}/cut`)).rejects.toThrow();
  });

  it('pipes a Node stream body (grammY’s multipart upload) and hands a FormData body to the platform’s fetch', async () => {
    handler = (_request, response, body) => json(response, 200, { length: body.length });
    const streamed = await httpFetch(`${base}/upload`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: Readable.from(['part one, ', 'part two']) as unknown as RequestInit['body'] });
    expect(await streamed.json()).toEqual({ length: 'part one, part two'.length });
    expect(seen[0]!.body).toBe('part one, part two');

    const form = new FormData();
    form.append('file', new Blob(['audio bytes']), 'voice.ogg');
    await httpFetch(`${base}/v1/audio/transcriptions`, { method: 'POST', body: form });
    expect(seen[1]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[1]!.body).toContain('audio bytes');
  });
});
