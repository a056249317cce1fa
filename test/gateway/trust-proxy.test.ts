import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseTrustProxy, type TrustProxy } from '../../src/config/trust-proxy.js';
import { AdminLoginGuard, createHttpServer, RedisLoginFailures, registerAdminScope, type LoginPolicy } from '../../src/gateway/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { createRedisClient, KeySpace, waitUntilReady, type RedisClient } from '../../src/redis/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';
import { startForwardingProxy, type ForwardingProxy } from './support/forwarding-proxy.js';

/**
 * Issue 48: behind a reverse proxy every client has the proxy's address, so the admin login lock-out locked every
 * operator out at once. TRUST_PROXY names the proxies whose X-Forwarded-For is believed; nobody else's is.
 */
const CREDENTIALS = { user: 'ops', password: 'right one' };
/** No pauses worth waiting for; the 3rd wrong password for one user name locks it out, the 6th from one address the address. */
const FAST: Partial<LoginPolicy> = { freeFailures: 5, lockAfter: 3, addressLockAfter: 6, lockoutMs: 60_000 };
/** Two clients of the proxy, told apart by the address they connect from (any of 127.0.0.0/8 works on Linux). */
const CLIENT_A = '127.0.0.2';
const CLIENT_B = '127.0.0.3';

let redis: RedisClient;
const closing: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redis = createRedisClient({ url: TEST_REDIS_URL, cluster: false }, 'producer');
  await waitUntilReady(redis);
});

afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

afterAll(async () => {
  await redis.quit();
});

/** The gateway's HTTP server with the admin scope, listening on a port, its wrong passwords counted in Redis. */
async function gateway(trustProxy: TrustProxy | undefined): Promise<{ port: number; keys: KeySpace }> {
  const logger = createLogger({ level: 'silent' });
  const keys = new KeySpace(uniqueName('proxy-login'), 1, false);
  const app: FastifyInstance = await createHttpServer({ routes: [], health: {}, logger, ...(trustProxy === undefined ? {} : { trustProxy }) });
  await registerAdminScope(app, CREDENTIALS, (scope) => void scope.get('/api/whoami', async (request) => ({ ip: request.ip })), {
    loginGuard: new AdminLoginGuard({ store: new RedisLoginFailures(redis, keys), policy: FAST, logger }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closing.push(() => app.close());
  return { port: (app.server.address() as AddressInfo).port, keys };
}

async function proxyTo(port: number): Promise<ForwardingProxy> {
  const proxy = await startForwardingProxy(port);
  closing.push(() => proxy.close());
  return proxy;
}

interface Login {
  from: string;
  user?: string;
  password: string;
  /** What the client itself puts in X-Forwarded-For (a forgery when it is not a proxy). */
  forwardedFor?: string;
}

async function login(port: number, { from, user = CREDENTIALS.user, password, forwardedFor }: Login): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, localAddress: from, path: '/admin/api/whoami', headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

const wrong = (from: string, index: number, extra: Partial<Login> = {}): Login => ({ from, password: `guess ${index}`, ...extra });

describe('TRUST_PROXY and the admin login lock-out behind a forwarding proxy', () => {
  it.each([
    ['the proxy\u2019s address', '127.0.0.1'],
    ['a CIDR', '127.0.0.1/32'],
    ['a named range', 'loopback'],
    ['a hop count', '1'],
  ])('trusted as %s: client A is locked out after its wrong passwords, client B logs in; request.ip is each client', async (_name, setting) => {
    const { port } = await gateway(parseTrustProxy(setting));
    const proxy = await proxyTo(port);
    expect(JSON.parse((await login(proxy.port, { from: CLIENT_B, password: CREDENTIALS.password })).body)).toEqual({ ip: CLIENT_B });
    for (const index of [1, 2]) expect((await login(proxy.port, wrong(CLIENT_A, index))).status).toBe(401);
    expect((await login(proxy.port, wrong(CLIENT_A, 3))).status).toBe(429);
    expect((await login(proxy.port, { from: CLIENT_A, password: CREDENTIALS.password })).status).toBe(429);

    const other = await login(proxy.port, { from: CLIENT_B, password: CREDENTIALS.password });
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body)).toEqual({ ip: CLIENT_B });
  });

  it('trusting the proxy\u2019s address: a client that forges X-Forwarded-For through it is still counted at its own address', async () => {
    const { port } = await gateway(parseTrustProxy('127.0.0.1'));
    const proxy = await proxyTo(port);
    for (const index of [1, 2]) expect((await login(proxy.port, wrong(CLIENT_A, index, { forwardedFor: `198.51.100.${index}` }))).status).toBe(401);
    expect((await login(proxy.port, wrong(CLIENT_A, 3, { forwardedFor: '198.51.100.3' }))).status).toBe(429);
    expect((await login(proxy.port, { from: CLIENT_A, password: CREDENTIALS.password, forwardedFor: '203.0.113.50' })).status).toBe(429);
  });

  it('without TRUST_PROXY: a forged X-Forwarded-For is ignored, so it cannot dodge the lock-out', async () => {
    const { port, keys } = await gateway(undefined);
    for (const index of [1, 2]) expect((await login(port, wrong(CLIENT_A, index, { forwardedFor: `198.51.100.${index}` }))).status).toBe(401);
    expect((await login(port, wrong(CLIENT_A, 3, { forwardedFor: '198.51.100.3' }))).status).toBe(429);
    expect((await login(port, { from: CLIENT_A, password: CREDENTIALS.password, forwardedFor: '203.0.113.50' })).status).toBe(429);
    // counted at the connection's address, under no forged one
    expect(await redis.get(keys.adminLogin(CLIENT_A, 'x').failures)).toBe('3');
    expect(await redis.exists(keys.adminLogin('198.51.100.1', 'x').failures)).toBe(0);
    expect(JSON.parse((await login(port, { from: CLIENT_B, password: CREDENTIALS.password, forwardedFor: CLIENT_A })).body)).toEqual({ ip: CLIENT_B });
  });

  it('without TRUST_PROXY behind a proxy, every client is the proxy: one client\u2019s wrong passwords lock the other out (why the setting exists)', async () => {
    const { port } = await gateway(undefined);
    const proxy = await proxyTo(port);
    for (const index of [1, 2]) expect((await login(proxy.port, wrong(CLIENT_A, index))).status).toBe(401);
    expect((await login(proxy.port, wrong(CLIENT_A, 3))).status).toBe(429);
    expect((await login(proxy.port, { from: CLIENT_B, password: CREDENTIALS.password })).status).toBe(429);
  });
});

describe('TRUST_PROXY values', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['off', false],
    ['0', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    [' 10.0.0.0/8 , 192.168.1.1,loopback ', ['10.0.0.0/8', '192.168.1.1', 'loopback']],
    ['fd00::/8,::1', ['fd00::/8', '::1']],
  ] as const)('%j → %j', (value, expected) => {
    expect(parseTrustProxy(value)).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/33', '10.0.0', 'proxy.internal', '::1/129', '1.5'])('%j is refused, naming the variable', (value) => {
    expect(() => parseTrustProxy(value)).toThrow(/^TRUST_PROXY: /);
  });
});
