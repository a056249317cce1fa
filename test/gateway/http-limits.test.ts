import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createHttpServer, DEFAULT_HTTP_LIMITS } from '../../src/gateway/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { openSocket, requestOnSocket } from './support/raw-http.js';

const base = { OPENAI_API_KEY: 'sk-test' };

describe('HTTP limits from the environment', () => {
  it('defaults to 30 s per request, 10 s for headers, 72 s keep-alive, 90 s idle, 256 connections per address', () => {
    expect(loadConfig(base).http).toEqual({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      connectionTimeoutMs: 90_000,
      maxConnectionsPerAddress: 256,
    });
    expect(loadConfig(base).http).toEqual(DEFAULT_HTTP_LIMITS);
  });

  it('reads HTTP_* variables; a short request timeout shortens the headers timeout with it', () => {
    expect(
      loadConfig({
        ...base,
        HTTP_REQUEST_TIMEOUT_MS: '5000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '61000',
        HTTP_CONNECTION_TIMEOUT_MS: '65000',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      }).http,
    ).toEqual({ requestTimeoutMs: 5_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 61_000, connectionTimeoutMs: 65_000, maxConnectionsPerAddress: 0 });
    expect(loadConfig({ ...base, HTTP_HEADERS_TIMEOUT_MS: '3000' }).http.headersTimeoutMs).toBe(3_000);
  });

  it('refuses contradictory or invalid values with the variable named', () => {
    const errorOf = (env: Record<string, string>) => {
      try {
        loadConfig({ ...base, ...env });
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(errorOf({ HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_HEADERS_TIMEOUT_MS: '5000' })).toMatch(/^HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/);
    expect(errorOf({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toMatch(/^HTTP_REQUEST_TIMEOUT_MS:/);
    expect(errorOf({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '-1' })).toMatch(/^HTTP_MAX_CONNECTIONS_PER_ADDRESS:/);
    expect(errorOf({ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'soon' })).toMatch(/^HTTP_KEEP_ALIVE_TIMEOUT_MS:/);
  });
});

describe('the connection cap', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
  });

  const listen = async (maxConnectionsPerAddress: number) => {
    app = await createHttpServer({ routes: [], health: {}, logger: createLogger({ level: 'silent' }), limits: { maxConnectionsPerAddress } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  };

  it('is off at 0', async () => {
    const port = await listen(0);
    const sockets = await Promise.all(Array.from({ length: 20 }, () => openSocket(port)));
    const statuses = await Promise.all(sockets.map((socket) => requestOnSocket(socket, '/healthz')));
    for (const socket of sockets) socket.destroy();
    expect(statuses).toEqual(Array(20).fill(200));
  });

  it('counts connections, not requests: one connection may send any number of requests', async () => {
    const port = await listen(1);
    const socket = await openSocket(port);
    for (let index = 0; index < 5; index++) expect(await requestOnSocket(socket, '/healthz')).toBe(200);
    const second = await openSocket(port);
    expect(await requestOnSocket(second, '/healthz')).toBeUndefined();
    socket.destroy();
    second.destroy();
  });
});
