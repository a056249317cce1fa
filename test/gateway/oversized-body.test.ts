import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, WEBHOOK_SECRET, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { openSocket } from './support/raw-http.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

interface Exchange {
  /** What failed while the body was being sent (EPIPE, ECONNRESET), if anything. */
  sendError: string | undefined;
  status: number | undefined;
  head: string;
}

/**
 * A client that sends the whole request before it reads anything (as many simple clients and proxies do):
 * headers, then the body in 64 KiB writes, each waited for; then it reads what came back.
 */
async function sendAllThenRead(body: Buffer, headers: Record<string, string>): Promise<Exchange> {
  const socket = await openSocket(service.port);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let sendError: string | undefined;
  socket.on('error', (error: NodeJS.ErrnoException) => (sendError ??= error.code ?? error.message));
  const write = (data: Buffer | string) => new Promise<void>((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
  const head = [`POST /webhooks/telegram HTTP/1.1`, `Host: 127.0.0.1:${service.port}`, 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  try {
    await write(`${head.join('\r\n')}\r\n\r\n`);
    for (let offset = 0; offset < body.length; offset += 64 * 1024) await write(body.subarray(offset, offset + 64 * 1024));
  } catch (error) {
    sendError ??= (error as NodeJS.ErrnoException).code ?? String(error);
  }
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  socket.destroy();
  const text = Buffer.concat(received).toString('latin1');
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return { sendError, status: match ? Number(match[1]) : undefined, head: text.split('\r\n\r\n')[0] ?? '' };
}

const webhookHeaders = { 'Content-Type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': WEBHOOK_SECRET };

describe('a webhook body over 1 MiB', () => {
  it('is answered 413, read to its end first, so a client that sends everything before reading gets the answer (4 of 4)', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 'a');
    for (let attempt = 1; attempt <= 4; attempt++) {
      const exchange = await sendAllThenRead(body, { ...webhookHeaders, 'Content-Length': String(body.length) });
      expect({ attempt, sendError: exchange.sendError, status: exchange.status }).toEqual({ attempt, sendError: undefined, status: 413 });
      expect(exchange.head).toMatch(/\r\nconnection: close\r\n/i);
    }
  });

  it('is answered 413 when it comes in chunks without a Content-Length', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 'a');
    const chunked = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
    const exchange = await sendAllThenRead(chunked, { ...webhookHeaders, 'Transfer-Encoding': 'chunked' });
    expect({ sendError: exchange.sendError, status: exchange.status }).toEqual({ sendError: undefined, status: 413 });
  });

  it('is cut off past the discard bound (16 MiB beyond the limit) instead of being read forever', async () => {
    const body = Buffer.alloc(40 * 1024 * 1024, 'a');
    const started = Date.now();
    const exchange = await sendAllThenRead(body, { ...webhookHeaders, 'Content-Length': String(body.length) });
    expect(exchange.sendError).toMatch(/EPIPE|ECONNRESET/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('leaves a body of exactly 1 MiB to the channel (which refuses it as bad JSON, not as too large)', async () => {
    const body = Buffer.alloc(1024 * 1024, ' ');
    body.write('{"x":', 0);
    const exchange = await sendAllThenRead(body, { ...webhookHeaders, 'Content-Length': String(body.length) });
    expect(exchange.status).toBe(400);
  });
});
