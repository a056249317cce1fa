import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { UserRateLimiter } from '../../src/access/index.js';
import { KeySpace } from '../../src/redis/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const redis = new Redis(TEST_REDIS_URL);
const other = new Redis(TEST_REDIS_URL);
const prefix = uniqueName('rate');
const keys = new KeySpace(prefix, 1, false);

afterAll(async () => {
  const stored = await redis.keys(`{${prefix}:*`);
  if (stored.length > 0) for (const key of stored) await redis.del(key);
  await Promise.all([redis.quit(), other.quit()]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the per-user rate limit (Redis)', () => {
  it('lets `limit` messages through per window, says so once, then drops silently', async () => {
    const limiter = new UserRateLimiter(redis, { keys, limit: 3 });
    const decisions = [];
    for (let index = 1; index <= 6; index++) decisions.push(await limiter.take('telegram:1', `m${index}`));
    expect(decisions.slice(0, 3)).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
    expect(decisions[3]).toMatchObject({ allowed: false, notify: true });
    expect((decisions[3] as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(55_000);
    expect(decisions.slice(4).map((decision) => decision.allowed || decision.notify)).toEqual([false, false]);
    // another user has a window of their own
    expect(await limiter.take('telegram:2', 'm1')).toEqual({ allowed: true });
  });

  it('counts across processes, and a redelivered message only once', async () => {
    const first = new UserRateLimiter(redis, { keys, limit: 2 });
    const second = new UserRateLimiter(other, { keys, limit: 2 });
    expect(await first.take('slack:U1', 'a')).toEqual({ allowed: true });
    expect(await second.take('slack:U1', 'a')).toEqual({ allowed: true }); // the platform retried message a
    expect(await second.take('slack:U1', 'b')).toEqual({ allowed: true });
    expect(await first.take('slack:U1', 'c')).toMatchObject({ allowed: false, notify: true });
    expect(await second.take('slack:U1', 'd')).toMatchObject({ allowed: false, notify: false });
  });

  it('slides: room comes back as the oldest message leaves the window, and the notice can come again', async () => {
    const limiter = new UserRateLimiter(redis, { keys, limit: 2, windowMs: 1_000 });
    expect(await limiter.take('feishu:x', '1')).toEqual({ allowed: true });
    await sleep(500);
    expect(await limiter.take('feishu:x', '2')).toEqual({ allowed: true });
    expect(await limiter.take('feishu:x', '3')).toMatchObject({ allowed: false, notify: true });
    await sleep(600); // message 1 has left the window, message 2 has not
    expect(await limiter.take('feishu:x', '4')).toEqual({ allowed: true });
    expect(await limiter.take('feishu:x', '5')).toMatchObject({ allowed: false });
    await sleep(1_100);
    expect(await limiter.take('feishu:x', '6')).toEqual({ allowed: true });
    expect(await limiter.take('feishu:x', '7')).toEqual({ allowed: true });
    expect(await limiter.take('feishu:x', '8')).toMatchObject({ allowed: false, notify: true });
  });

  it('is off with a limit of 0', async () => {
    const limiter = new UserRateLimiter(redis, { keys, limit: 0 });
    for (let index = 0; index < 10; index++) expect(await limiter.take('telegram:3', String(index))).toEqual({ allowed: true });
  });
});
