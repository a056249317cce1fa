import { createHash } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { MemoryLoginFailures, type LoginAttempt, type LoginFailureStore } from '../redis/admin-login-failures.js';

/**
 * How wrong admin passwords are met. They are counted per client address (as TRUST_PROXY's proxy reports it) and
 * user name given, for `windowMs` after the last one: the first `freeFailures` are answered at once (typos), each
 * further one after a pause that doubles from `firstDelayMs` up to `maxDelayMs`, and failure number `lockAfter`
 * locks that user name out from that address for `lockoutMs` (the right password refused too, 429 with Retry-After),
 * while another user name from the same address still logs in. So that one address cannot try user name after user
 * name, `addressLockAfter` wrong passwords from one address, whatever the names, lock the whole address out.
 */
export interface LoginPolicy {
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
  lockAfter: number;
  addressLockAfter: number;
  windowMs: number;
  lockoutMs: number;
}

export const DEFAULT_LOGIN_POLICY: LoginPolicy = {
  freeFailures: 5,
  firstDelayMs: 500,
  maxDelayMs: 4_000,
  lockAfter: 10,
  // three user names' worth of lock-outs: room for an operator's typos, none for trying names
  addressLockAfter: 30,
  windowMs: 15 * 60_000,
  lockoutMs: 15 * 60_000,
};

export type LoginVerdict = { kind: 'allowed'; failures: number } | { kind: 'locked'; retryAfterSeconds: number };

export interface AdminLoginGuardOptions {
  /** Shared by every gateway process (Redis); absent or not answering: counted in this process. */
  store?: LoginFailureStore;
  policy?: Partial<LoginPolicy>;
  logger: Logger;
  metrics?: Metrics;
  sleep?: (ms: number) => Promise<void>;
}

export class AdminLoginGuard {
  readonly policy: LoginPolicy;
  private readonly local = new MemoryLoginFailures();
  private lastStoreWarning = 0;

  constructor(private readonly options: AdminLoginGuardOptions) {
    this.policy = { ...DEFAULT_LOGIN_POLICY, ...options.policy };
  }

  /** Before the password is looked at: is this user name, or the whole address, locked out? */
  async check(address: string, user: string): Promise<LoginVerdict> {
    const state = await this.withStore((store) => store.state(attemptOf(address, user)));
    if (state.lockedForMs > 0) {
      this.options.metrics?.adminLoginFailures.inc({ outcome: 'locked' });
      return { kind: 'locked', retryAfterSeconds: Math.ceil(state.lockedForMs / 1000) };
    }
    return { kind: 'allowed', failures: state.failures };
  }

  /** The right password: this user name's count from this address starts afresh. */
  async succeeded(address: string, user: string, verdict: LoginVerdict): Promise<void> {
    if (verdict.kind === 'allowed' && verdict.failures > 0) await this.withStore((store) => store.forget(attemptOf(address, user)));
  }

  /** A wrong user or password: counted, paused for, and perhaps the lock-out. */
  async failed(address: string, user: string): Promise<LoginVerdict> {
    const { logger, metrics } = this.options;
    const state = await this.withStore((store) => store.recordFailure(attemptOf(address, user), this.policy));
    const counts = { address, failures: state.failures, addressFailures: state.addressFailures };
    if (state.lockedForMs > 0) {
      metrics?.adminLoginFailures.inc({ outcome: 'locked' });
      const lockedForSeconds = Math.ceil(state.lockedForMs / 1000);
      if (state.lockedScope === 'address') {
        logger.warn({ ...counts, lockedForSeconds, addressLockAfter: this.policy.addressLockAfter }, 'admin login locked out for this address after repeated wrong passwords');
      } else {
        logger.warn({ ...counts, lockedForSeconds }, 'admin login locked out for this user name from this address after repeated wrong passwords');
      }
      return { kind: 'locked', retryAfterSeconds: lockedForSeconds };
    }
    metrics?.adminLoginFailures.inc({ outcome: 'refused' });
    logger.warn({ ...counts, lockAfter: this.policy.lockAfter }, 'admin login refused: wrong user or password');
    const delayMs = this.delayAfter(state.failures);
    if (delayMs > 0) await (this.options.sleep ?? sleep)(delayMs);
    return { kind: 'allowed', failures: state.failures };
  }

  delayAfter(failures: number): number {
    const { freeFailures, firstDelayMs, maxDelayMs } = this.policy;
    if (failures <= freeFailures) return 0;
    return Math.min(maxDelayMs, firstDelayMs * 2 ** (failures - freeFailures - 1));
  }

  private async withStore<T>(work: (store: LoginFailureStore) => Promise<T>): Promise<T> {
    const { store } = this.options;
    if (!store) return work(this.local);
    try {
      return await work(store);
    } catch (error) {
      if (Date.now() - this.lastStoreWarning > 60_000) {
        this.lastStoreWarning = Date.now();
        this.options.logger.warn({ err: error }, 'admin login failures cannot be counted in Redis; counting in this process meanwhile (logged once a minute)');
      }
      return work(this.local);
    }
  }
}

/** The user name is kept as a digest: it may be a password typed in the wrong field, and its length is the client's to choose. */
function attemptOf(address: string, user: string): LoginAttempt {
  return { address, userKey: createHash('sha256').update(user, 'utf8').digest('hex').slice(0, 32) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
