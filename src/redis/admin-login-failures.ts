import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

/** Who tries to log in: the client address, and a digest of the user name given (never the name itself). */
export interface LoginAttempt {
  address: string;
  userKey: string;
}

/** Failed admin logins of one user name from one client address, of the address as a whole, and how long a lock-out lasts. */
export interface LoginState {
  /** Wrong passwords for this user name from this address within the window. */
  failures: number;
  /** Wrong passwords for any user name from this address within the window. */
  addressFailures: number;
  /** How much longer this user name from this address, or the whole address, is locked out (the longer of the two). */
  lockedForMs: number;
  /** Which lock-out `lockedForMs` is: the whole address's, or this user name's from this address. */
  lockedScope?: 'address' | 'user';
}

/**
 * When a lock-out starts: `lockAfter` wrong passwords for one user name from one address lock that user name out from
 * that address; `addressLockAfter` wrong passwords for any names from one address lock the whole address out.
 */
export interface LockRule {
  windowMs: number;
  lockAfter: number;
  addressLockAfter: number;
  lockoutMs: number;
}

/** Where failed logins are counted; `recordFailure` starts a lock-out when a count reaches its limit. */
export interface LoginFailureStore {
  state(attempt: LoginAttempt): Promise<LoginState>;
  recordFailure(attempt: LoginAttempt, rule: LockRule): Promise<LoginState>;
  /** The right password: this user name's count from this address starts afresh (the address's count runs out by itself). */
  forget(attempt: LoginAttempt): Promise<void>;
}

/**
 * In Redis, so every gateway process counts against the same numbers. Keys of one address share a hash tag:
 *   {<prefix>:admin-login:<address>}:failures                STRING  wrong passwords from the address; expires `windowMs` after the last
 *   {<prefix>:admin-login:<address>}:locked                  STRING  present while the whole address is locked out (PX lockout)
 *   {<prefix>:admin-login:<address>}:user:<digest>:failures  STRING  the same for one user name from the address
 *   {<prefix>:admin-login:<address>}:user:<digest>:locked    STRING  present while that user name is locked out from the address
 * Reaching a limit sets its `locked`; the counts stay (they run out with their window, and the right password clears
 * the user name's), so concurrent guesses past the limit are all refused, whatever order their replies come in.
 */
export class RedisLoginFailures implements LoginFailureStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  async state(attempt: LoginAttempt): Promise<LoginState> {
    const keys = this.keysOf(attempt);
    const replies = await this.redis.pipeline().get(keys.userFailures).get(keys.failures).pttl(keys.userLocked).pttl(keys.locked).exec();
    const userLockedMs = Math.max(0, Number(reply(replies, 2)));
    const addressLockedMs = Math.max(0, Number(reply(replies, 3)));
    return withLock({ failures: Number(reply(replies, 0) ?? 0), addressFailures: Number(reply(replies, 1) ?? 0) }, userLockedMs, addressLockedMs);
  }

  async recordFailure(attempt: LoginAttempt, rule: LockRule): Promise<LoginState> {
    const keys = this.keysOf(attempt);
    const counted = await this.redis
      .multi()
      .incr(keys.userFailures)
      .pexpire(keys.userFailures, rule.windowMs)
      .incr(keys.failures)
      .pexpire(keys.failures, rule.windowMs)
      .exec();
    const failures = Number(reply(counted, 0));
    const addressFailures = Number(reply(counted, 2));
    const userLocked = failures >= rule.lockAfter;
    const addressLocked = addressFailures >= rule.addressLockAfter;
    if (userLocked || addressLocked) {
      const locks = this.redis.pipeline();
      if (userLocked) locks.set(keys.userLocked, String(failures), 'PX', rule.lockoutMs);
      if (addressLocked) locks.set(keys.locked, String(addressFailures), 'PX', rule.lockoutMs);
      const replies = await locks.exec();
      for (let index = 0; index < (replies?.length ?? 0); index++) reply(replies, index);
    }
    return withLock({ failures, addressFailures }, userLocked ? rule.lockoutMs : 0, addressLocked ? rule.lockoutMs : 0);
  }

  async forget(attempt: LoginAttempt): Promise<void> {
    await this.redis.del(this.keysOf(attempt).userFailures);
  }

  private keysOf(attempt: LoginAttempt) {
    return this.keys.adminLogin(attempt.address, attempt.userKey);
  }
}

function withLock(counts: { failures: number; addressFailures: number }, userLockedMs: number, addressLockedMs: number): LoginState {
  if (addressLockedMs === 0 && userLockedMs === 0) return { ...counts, lockedForMs: 0 };
  return addressLockedMs >= userLockedMs
    ? { ...counts, lockedForMs: addressLockedMs, lockedScope: 'address' }
    : { ...counts, lockedForMs: userLockedMs, lockedScope: 'user' };
}

function reply(replies: Array<[Error | null, unknown]> | null, index: number): unknown {
  const [error, value] = replies?.[index] ?? [new Error('no reply from Redis'), undefined];
  if (error) throw error;
  return value;
}

interface Counter {
  failures: number;
  countedUntil: number;
  lockedUntil: number;
}

/** In this process only: used when Redis does not answer, so guessing is never free. At most `maxEntries` counters kept. */
export class MemoryLoginFailures implements LoginFailureStore {
  private readonly entries = new Map<string, Counter>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  async state(attempt: LoginAttempt): Promise<LoginState> {
    const user = this.current(userEntry(attempt));
    const address = this.current(attempt.address);
    return withLock({ failures: user?.failures ?? 0, addressFailures: address?.failures ?? 0 }, this.lockedFor(user), this.lockedFor(address));
  }

  async recordFailure(attempt: LoginAttempt, rule: LockRule): Promise<LoginState> {
    const user = this.count(userEntry(attempt), rule.windowMs, rule.lockAfter, rule.lockoutMs);
    const address = this.count(attempt.address, rule.windowMs, rule.addressLockAfter, rule.lockoutMs);
    return withLock({ failures: user.failures, addressFailures: address.failures }, this.lockedFor(user), this.lockedFor(address));
  }

  async forget(attempt: LoginAttempt): Promise<void> {
    const entry = this.entries.get(userEntry(attempt));
    if (entry) entry.failures = 0;
  }

  private count(key: string, windowMs: number, lockAfter: number, lockoutMs: number): Counter {
    const now = this.clock();
    const entry = this.current(key) ?? { failures: 0, countedUntil: 0, lockedUntil: 0 };
    entry.failures += 1;
    entry.countedUntil = now + windowMs;
    if (entry.failures >= lockAfter) entry.lockedUntil = now + lockoutMs;
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  private lockedFor(entry: Counter | undefined): number {
    return entry ? Math.max(0, entry.lockedUntil - this.clock()) : 0;
  }

  private current(key: string): Counter | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = this.clock();
    if (entry.countedUntil <= now && entry.lockedUntil <= now) {
      this.entries.delete(key);
      return undefined;
    }
    if (entry.countedUntil <= now) entry.failures = 0;
    return entry;
  }
}

/** A user name's counter from one address (the newline cannot occur in an address). */
function userEntry(attempt: LoginAttempt): string {
  return `${attempt.address}\n${attempt.userKey}`;
}
