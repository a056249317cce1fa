import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { MemoryLoginFailures, type LoginFailureStore } from '../redis/admin-login-failures.js';

/**
 * How wrong admin passwords from one client address are met. Failures are counted for `windowMs` after the
 * last one: the first `freeFailures` are answered at once (typos), each further one after a pause that doubles
 * from `firstDelayMs` up to `maxDelayMs`, and failure number `lockAfter` locks the address out for `lockoutMs`:
 * every request from it, with the right password too, gets 429 with Retry-After until then.
 */
export interface LoginPolicy {
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
  lockAfter: number;
  windowMs: number;
  lockoutMs: number;
}

export const DEFAULT_LOGIN_POLICY: LoginPolicy = {
  freeFailures: 5,
  firstDelayMs: 500,
  maxDelayMs: 4_000,
  lockAfter: 10,
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

  /** Before the password is looked at: is this address locked out? */
  async check(address: string): Promise<LoginVerdict> {
    const state = await this.withStore((store) => store.state(address));
    if (state.lockedForMs > 0) {
      this.options.metrics?.adminLoginFailures.inc({ outcome: 'locked' });
      return { kind: 'locked', retryAfterSeconds: Math.ceil(state.lockedForMs / 1000) };
    }
    return { kind: 'allowed', failures: state.failures };
  }

  /** The right password: the address's count starts afresh. */
  async succeeded(address: string, verdict: LoginVerdict): Promise<void> {
    if (verdict.kind === 'allowed' && verdict.failures > 0) await this.withStore((store) => store.forget(address));
  }

  /** A wrong user or password: counted, paused for, and perhaps the lock-out. */
  async failed(address: string): Promise<LoginVerdict> {
    const { logger, metrics } = this.options;
    const state = await this.withStore((store) => store.recordFailure(address, this.policy));
    if (state.lockedForMs > 0) {
      metrics?.adminLoginFailures.inc({ outcome: 'locked' });
      logger.warn({ address, failures: state.failures, lockedForSeconds: Math.ceil(state.lockedForMs / 1000) }, 'admin login locked out for this address after repeated wrong passwords');
      return { kind: 'locked', retryAfterSeconds: Math.ceil(state.lockedForMs / 1000) };
    }
    metrics?.adminLoginFailures.inc({ outcome: 'refused' });
    logger.warn({ address, failures: state.failures, lockAfter: this.policy.lockAfter }, 'admin login refused: wrong user or password');
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
