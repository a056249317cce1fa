import type { Redis } from 'ioredis';

/**
 * A sliding-window log per user in Redis (one sorted set of message ids by arrival time), so every
 * gateway process counts against the same window. The message's dedupe key is the member: a platform
 * redelivery is not counted twice. Refused messages are not counted, so a user who keeps sending is
 * let through again as soon as the oldest counted message leaves the window. The first refusal in a
 * window says so (`notify`); the next ones are dropped silently.
 */
const SLIDING_WINDOW = `
local key, notified = KEYS[1], KEYS[2]
local window, limit, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZSCORE', key, member) then return {1, 0, 0} end
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
  return {1, 0, 0}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local wait = math.max(0, tonumber(oldest[2]) + window - now)
local first = redis.call('SET', notified, '1', 'NX', 'PX', window)
return {0, first and 1 or 0, wait}
`;

export type RateDecision = { allowed: true } | { allowed: false; notify: boolean; retryAfterMs: number };

export interface UserRateLimiterOptions {
  prefix: string;
  /** Messages per window; 0 turns the limiter off. */
  limit: number;
  windowMs?: number;
}

export class UserRateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #prefix: string;

  constructor(
    private readonly redis: Redis,
    options: UserRateLimiterOptions,
  ) {
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.#prefix = options.prefix;
    if (!('userRateWindow' in redis)) redis.defineCommand('userRateWindow', { numberOfKeys: 2, lua: SLIDING_WINDOW });
  }

  /** Counts the message against `userKey`'s window (`channel:userId`) unless the window is full. */
  async take(userKey: string, messageId: string): Promise<RateDecision> {
    if (this.limit <= 0) return { allowed: true };
    const base = `${this.#prefix}:rate:{${userKey}}`;
    const run = (this.redis as unknown as Record<string, (...args: string[]) => Promise<[number, number, number]>>).userRateWindow!;
    const [allowed, notify, wait] = await run.call(this.redis, base, `${base}:notified`, String(this.windowMs), String(this.limit), messageId);
    return allowed === 1 ? { allowed: true } : { allowed: false, notify: notify === 1, retryAfterMs: wait };
  }
}
