import type { KeySpace } from './key-space.js';
import { LuaScripts } from './lua-scripts.js';
import type { RedisClient } from './redis-client.js';

const SCRIPTS = { 'rate-window': 2 } as const;

export type RateDecision = { allowed: true } | { allowed: false; notify: boolean; retryAfterMs: number };

export interface UserRateLimiterOptions {
  keys: KeySpace;
  /** Messages per window; 0 turns the limiter off. */
  limit: number;
  windowMs?: number;
}

export class UserRateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #keys: KeySpace;
  readonly #scripts: LuaScripts<keyof typeof SCRIPTS>;

  /** A sliding minute per user, shared by every gateway process (see lua/rate-window.lua). */
  constructor(redis: RedisClient, options: UserRateLimiterOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.#keys = options.keys;
    this.#scripts = new LuaScripts(redis, SCRIPTS);
  }

  /** Counts the message against `userKey`'s window (`channel:userId`) unless the window is full. */
  async take(userKey: string, messageId: string): Promise<RateDecision> {
    if (this.limit <= 0) return { allowed: true };
    const keys = this.#keys.rateLimit(userKey);
    const [allowed, notify, wait] = await this.#scripts.run<[number, number, number]>('rate-window', [keys.window, keys.notified], [this.windowMs, this.limit, messageId]);
    return allowed === 1 ? { allowed: true } : { allowed: false, notify: notify === 1, retryAfterMs: wait };
  }
}
