import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AdminLoginGuard, createHttpServer, MemoryLoginFailures, RedisLoginFailures, registerAdminScope, type LoginPolicy } from '../../src/gateway/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { createRedisClient, KeySpace, waitUntilReady, type RedisClient } from '../../src/redis/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const CREDENTIALS = { user: 'ops', password: 'right one' };
const basic = (password: string, user = CREDENTIALS.user) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
/** Short enough to wait for: 2 free, then 100 ms doubling, locked at the 4th for one user name (the 8th for the address) for 1.5 s. */
const FAST: Partial<LoginPolicy> = { freeFailures: 2, firstDelayMs: 100, maxDelayMs: 400, lockAfter: 4, addressLockAfter: 8, lockoutMs: 1_500 };

let redis: RedisClient;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  redis = createRedisClient({ url: TEST_REDIS_URL, cluster: false }, 'producer');
  await waitUntilReady(redis);
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

afterAll(async () => {
  await redis.quit();
});

interface Gateway {
  app: FastifyInstance;
  metrics: Metrics;
  logLines: () => Array<Record<string, unknown>>;
  /** The pauses the guard took before answering, in order. */
  pauses: number[];
}

/** One gateway process's admin scope, its wrong passwords counted in `store`. */
async function gateway(store: RedisLoginFailures | undefined, policy: Partial<LoginPolicy> = FAST): Promise<Gateway> {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }) });
  const metrics = new Metrics();
  const pauses: number[] = [];
  const sleep = (ms: number) => (pauses.push(ms), new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const app = await createHttpServer({ routes: [], health: {}, logger });
  await registerAdminScope(app, CREDENTIALS, (scope) => void scope.get('/api/ping', async () => ({ ok: true })), {
    loginGuard: new AdminLoginGuard({ store, policy, logger, metrics, sleep }),
  });
  await app.ready();
  apps.push(app);
  return { app, metrics, pauses, logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

async function attempt(app: FastifyInstance, password: string | undefined, remoteAddress = '203.0.113.7', user = CREDENTIALS.user) {
  const started = Date.now();
  const response = await app.inject({ method: 'GET', url: '/admin/api/ping', headers: password === undefined ? {} : basic(password, user), remoteAddress });
  return { status: response.statusCode, retryAfter: response.headers['retry-after'], ms: Date.now() - started, body: response.body };
}

async function counted(metrics: Metrics, outcome: string): Promise<number> {
  const values = (await metrics.adminLoginFailures.get()).values;
  return values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
}

describe('wrong admin passwords', () => {
  it('are answered at once, then more slowly, then refused with 429 and Retry-After; the right password works again when the lock-out ends', async () => {
    const { app, metrics, logLines, pauses } = await gateway(new RedisLoginFailures(redis, new KeySpace(uniqueName('login'), 1, false)));
    expect([(await attempt(app, 'guess 1')).status, (await attempt(app, 'guess 2')).status]).toEqual([401, 401]);
    expect(pauses).toEqual([]);
    const third = await attempt(app, 'guess 3');
    expect(third.status).toBe(401);
    expect(pauses).toEqual([100]);
    expect(third.ms).toBeGreaterThanOrEqual(95);

    const fourth = await attempt(app, 'guess 4');
    expect({ status: fourth.status, retryAfter: fourth.retryAfter }).toEqual({ status: 429, retryAfter: '2' });
    expect(JSON.parse(fourth.body).error).toBe('too many wrong passwords from this address: try again in 2 s');
    // locked out: the right password is refused as well, without being looked at
    expect((await attempt(app, CREDENTIALS.password)).status).toBe(429);
    // another address is not
    expect((await attempt(app, CREDENTIALS.password, '198.51.100.1')).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await attempt(app, CREDENTIALS.password)).status).toBe(200);
    expect(pauses).toEqual([100]);

    expect(await counted(metrics, 'refused')).toBe(3);
    expect(await counted(metrics, 'locked')).toBe(2);
    const warnings = logLines().filter((line) => line.level === 40);
    expect(warnings.map((line) => line.msg)).toEqual([
      ...Array(3).fill('admin login refused: wrong user or password'),
      'admin login locked out for this user name from this address after repeated wrong passwords',
    ]);
    expect(warnings.at(-1)).toMatchObject({ address: '203.0.113.7', failures: 4, addressFailures: 4, lockedForSeconds: 2 });
    // the user name is not logged (it may be a password typed in the wrong field)
    expect(JSON.stringify(warnings)).not.toContain(CREDENTIALS.user);
  });

  it('lock out the user name they were given for, from that address: another user name from it still logs in', async () => {
    const { app } = await gateway(new RedisLoginFailures(redis, new KeySpace(uniqueName('login'), 1, false)));
    // someone guesses the password of a user name that is not the operator's
    for (let index = 1; index <= 3; index++) expect((await attempt(app, `guess ${index}`, '203.0.113.7', 'admin')).status).toBe(401);
    expect((await attempt(app, 'guess 4', '203.0.113.7', 'admin')).status).toBe(429);
    expect((await attempt(app, 'right one', '203.0.113.7', 'admin')).status).toBe(429);
    // the operator, behind the same address, gives the right user name and password
    expect((await attempt(app, CREDENTIALS.password)).status).toBe(200);
    // and a typo of theirs is counted afresh, not on top of the other name's guesses
    expect((await attempt(app, 'typo')).status).toBe(401);
    expect((await attempt(app, CREDENTIALS.password)).status).toBe(200);
  });

  it('from one address, whatever the user names, lock the whole address out at addressLockAfter', async () => {
    const { app, logLines } = await gateway(new RedisLoginFailures(redis, new KeySpace(uniqueName('login'), 1, false)));
    // seven names, one guess each: no name reaches its limit of 4
    for (let index = 1; index <= 7; index++) expect((await attempt(app, 'guess', '203.0.113.7', `name-${index}`)).status).toBe(401);
    const eighth = await attempt(app, 'guess', '203.0.113.7', 'name-8');
    expect({ status: eighth.status, retryAfter: eighth.retryAfter }).toEqual({ status: 429, retryAfter: '2' });
    // the right credentials from that address are refused until the lock-out ends; from another address they work
    expect((await attempt(app, CREDENTIALS.password)).status).toBe(429);
    expect((await attempt(app, CREDENTIALS.password, '198.51.100.1')).status).toBe(200);
    expect(logLines().at(-1)).toMatchObject({ msg: 'admin login locked out for this address after repeated wrong passwords', addressFailures: 8, addressLockAfter: 8 });
  });

  it('are counted across gateway processes that share Redis', async () => {
    const prefix = uniqueName('login');
    const one = await gateway(new RedisLoginFailures(redis, new KeySpace(prefix, 1, false)));
    const other = await gateway(new RedisLoginFailures(redis, new KeySpace(prefix, 1, false)));
    for (const app of [one.app, other.app, one.app]) expect((await attempt(app, 'wrong')).status).toBe(401);
    expect((await attempt(other.app, 'wrong')).status).toBe(429);
    expect((await attempt(one.app, CREDENTIALS.password)).status).toBe(429);
  });

  it('start afresh after the right password', async () => {
    const { app } = await gateway(new RedisLoginFailures(redis, new KeySpace(uniqueName('login'), 1, false)));
    for (let round = 0; round < 3; round++) {
      expect((await attempt(app, 'typo')).status).toBe(401);
      expect((await attempt(app, 'typo')).status).toBe(401);
      expect((await attempt(app, CREDENTIALS.password)).status).toBe(200);
    }
  });

  it('are not counted when no credentials are sent (a browser asks without them first)', async () => {
    const { app, metrics } = await gateway(new RedisLoginFailures(redis, new KeySpace(uniqueName('login'), 1, false)));
    for (let index = 0; index < 10; index++) expect((await attempt(app, undefined)).status).toBe(401);
    expect((await attempt(app, CREDENTIALS.password)).status).toBe(200);
    expect(await counted(metrics, 'refused')).toBe(0);
  });

  it('are still counted, in the process, while Redis does not answer', async () => {
    const away = createRedisClient({ url: 'redis://127.0.0.1:1', cluster: false }, 'producer');
    away.on('error', () => undefined);
    try {
      const { app, logLines } = await gateway(new RedisLoginFailures(away, new KeySpace('away', 1, false)));
      for (let index = 0; index < 3; index++) expect((await attempt(app, 'wrong')).status).toBe(401);
      expect((await attempt(app, 'wrong')).status).toBe(429);
      expect(logLines().some((line) => String(line.msg).startsWith('admin login failures cannot be counted in Redis'))).toBe(true);
    } finally {
      away.disconnect();
    }
  });

  it('in the process: the same rule, per user name and per address, and both run out with their window', async () => {
    let now = 1_000_000;
    const store = new MemoryLoginFailures(() => now);
    const rule = { windowMs: 10_000, lockAfter: 2, addressLockAfter: 3, lockoutMs: 5_000 };
    const from = (userKey: string) => ({ address: '203.0.113.7', userKey });
    expect(await store.recordFailure(from('a'), rule)).toEqual({ failures: 1, addressFailures: 1, lockedForMs: 0 });
    expect(await store.recordFailure(from('a'), rule)).toEqual({ failures: 2, addressFailures: 2, lockedForMs: 5_000, lockedScope: 'user' });
    expect(await store.state(from('b'))).toEqual({ failures: 0, addressFailures: 2, lockedForMs: 0 });
    expect(await store.recordFailure(from('b'), rule)).toEqual({ failures: 1, addressFailures: 3, lockedForMs: 5_000, lockedScope: 'address' });
    expect((await store.state(from('c'))).lockedForMs).toBe(5_000);
    expect((await store.state({ address: '198.51.100.1', userKey: 'a' })).lockedForMs).toBe(0);
    now += 5_000;
    expect(await store.state(from('a'))).toEqual({ failures: 2, addressFailures: 3, lockedForMs: 0 });
    now += 10_000;
    expect(await store.state(from('a'))).toEqual({ failures: 0, addressFailures: 0, lockedForMs: 0 });
  });

  it('with the default policy: 5 at once, then 0.5, 1, 2 and 4 s, then locked out for 15 minutes', () => {
    const guard = new AdminLoginGuard({ logger: createLogger({ level: 'silent' }) });
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((failures) => guard.delayAfter(failures))).toEqual([0, 0, 0, 0, 0, 500, 1_000, 2_000, 4_000]);
    expect(guard.policy).toMatchObject({ lockAfter: 10, addressLockAfter: 30, lockoutMs: 900_000 });
  });
});
