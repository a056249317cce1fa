import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

/** Failed admin logins of one client address, and how much longer it is locked out. */
export interface LoginState {
  failures: number;
  lockedForMs: number;
}

/** Where failed logins are counted; `recordFailure` locks the address out when it reaches `lockAfter`. */
export interface LoginFailureStore {
  state(address: string): Promise<LoginState>;
  recordFailure(address: string, rule: { windowMs: number; lockAfter: number; lockoutMs: number }): Promise<LoginState>;
  forget(address: string): Promise<void>;
}

/**
 * In Redis, so every gateway process counts against the same numbers. Keys of one address share a hash tag:
 *   {<prefix>:admin-login:<address>}:failures  STRING  failed logins; expires `windowMs` after the last one
 *   {<prefix>:admin-login:<address>}:locked    STRING  present while the address is locked out (PX lockout)
 * Reaching the limit sets `locked`; the count stays (it runs out with its window, and the right password
 * clears it), so concurrent guesses past the limit are all refused, whatever order their replies come in.
 */
export class RedisLoginFailures implements LoginFailureStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  async state(address: string): Promise<LoginState> {
    const keys = this.keysOf(address);
    const replies = await this.redis.pipeline().get(keys.failures).pttl(keys.locked).exec();
    return { failures: Number(reply(replies, 0) ?? 0), lockedForMs: Math.max(0, Number(reply(replies, 1))) };
  }

  async recordFailure(address: string, rule: { windowMs: number; lockAfter: number; lockoutMs: number }): Promise<LoginState> {
    const keys = this.keysOf(address);
    const counted = await this.redis.multi().incr(keys.failures).pexpire(keys.failures, rule.windowMs).exec();
    const failures = Number(reply(counted, 0));
    if (failures < rule.lockAfter) return { failures, lockedForMs: 0 };
    await this.redis.set(keys.locked, String(failures), 'PX', rule.lockoutMs);
    return { failures, lockedForMs: rule.lockoutMs };
  }

  async forget(address: string): Promise<void> {
    await this.redis.del(this.keysOf(address).failures);
  }

  private keysOf(address: string) {
    return this.keys.adminLogin(address);
  }
}

function reply(replies: Array<[Error | null, unknown]> | null, index: number): unknown {
  const [error, value] = replies?.[index] ?? [new Error('no reply from Redis'), undefined];
  if (error) throw error;
  return value;
}

/** In this process only: used when Redis does not answer, so guessing is never free. At most `maxAddresses` kept. */
export class MemoryLoginFailures implements LoginFailureStore {
  private readonly entries = new Map<string, { failures: number; countedUntil: number; lockedUntil: number }>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly maxAddresses = 10_000,
  ) {}

  async state(address: string): Promise<LoginState> {
    const entry = this.current(address);
    return { failures: entry?.failures ?? 0, lockedForMs: entry ? Math.max(0, entry.lockedUntil - this.clock()) : 0 };
  }

  async recordFailure(address: string, rule: { windowMs: number; lockAfter: number; lockoutMs: number }): Promise<LoginState> {
    const now = this.clock();
    const entry = this.current(address) ?? { failures: 0, countedUntil: 0, lockedUntil: 0 };
    entry.failures += 1;
    entry.countedUntil = now + rule.windowMs;
    const failures = entry.failures;
    if (failures >= rule.lockAfter) entry.lockedUntil = now + rule.lockoutMs;
    this.entries.delete(address);
    this.entries.set(address, entry);
    if (this.entries.size > this.maxAddresses) this.entries.delete(this.entries.keys().next().value!);
    return { failures, lockedForMs: Math.max(0, entry.lockedUntil - now) };
  }

  async forget(address: string): Promise<void> {
    const entry = this.entries.get(address);
    if (entry) entry.failures = 0;
  }

  private current(address: string) {
    const entry = this.entries.get(address);
    if (!entry) return undefined;
    const now = this.clock();
    if (entry.countedUntil <= now && entry.lockedUntil <= now) {
      this.entries.delete(address);
      return undefined;
    }
    if (entry.countedUntil <= now) entry.failures = 0;
    return entry;
  }
}
