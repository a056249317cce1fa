import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { openSocket, rawRequest, requestOnSocket } from './support/raw-http.js';
import { trickleRequest } from './support/slow-client.js';

const REQUEST_TIMEOUT_MS = 2_000;
const MAX_CONNECTIONS = 5;

let environment: E2eEnvironment;
let service: ServiceProcess;
const sockets: Socket[] = [];

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(
    environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(MAX_CONNECTIONS) }),
  );
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await service?.stop();
  await environment?.close();
});

describe('slow and greedy clients (built service)', () => {
  it('closes a connection whose body trickles in within the request timeout', async () => {
    const response = await trickleRequest(service.port, { intervalMs: 400 });
    expect(response.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);
    expect([408, undefined]).toContain(response.status);
  });

  it('closes a connection whose headers trickle in within the request timeout', async () => {
    const response = await trickleRequest(service.port, { intervalMs: 400, headers: 'trickle' });
    expect(response.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);
    expect([408, undefined]).toContain(response.status);
  });

  it('still answers ordinary webhooks, also on a kept-alive connection', async () => {
    const update = environment.telegram.makeUpdate.privateText(8201, 'hello');
    expect((await postTelegramUpdate(service.url, update)).status).toBe(200);
    const socket = await openSocket(service.port);
    sockets.push(socket);
    expect(await requestOnSocket(socket, '/healthz')).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 500)); // idle between requests is not a slow request
    expect(await requestOnSocket(socket, '/healthz')).toBe(200);
    socket.destroy();
  });

  it(`refuses connections from one address beyond ${MAX_CONNECTIONS} while other clients are served`, async () => {
    const flooder = '127.0.0.3';
    const held: Socket[] = [];
    for (let index = 0; index < MAX_CONNECTIONS; index++) {
      const socket = await openSocket(service.port, flooder);
      sockets.push(socket);
      held.push(socket);
      expect(await requestOnSocket(socket, '/healthz')).toBe(200);
    }
    const refused = await openSocket(service.port, flooder);
    sockets.push(refused);
    expect(await requestOnSocket(refused, '/healthz')).toBeUndefined();

    expect((await rawRequest(service.port, 'GET', '/healthz', {}, { localAddress: '127.0.0.4' })).status).toBe(200);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${service.url}/metrics`)).text()).toMatch(/^bot_http_connections_refused_total [1-9]/m);

    held.pop()!.destroy();
    await waitFor(async () => {
      const socket = await openSocket(service.port, flooder);
      sockets.push(socket);
      return (await requestOnSocket(socket, '/healthz', 1_000)) === 200;
    }, { what: 'a free slot after one connection closed' });
  });
});
