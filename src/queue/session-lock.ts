import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export interface HeldLock {
  /** False once the lock expired or was taken over (renewal failed). */
  readonly held: boolean;
  release(): Promise<void>;
}

/**
 * A per-session try-lock: SET NX with a random token and a TTL, renewed while held,
 * released by compare-and-delete so a holder never frees a lock that is no longer its own.
 */
export class SessionLock {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs = 30_000,
  ) {}

  private key(name: string, sessionKey: string): string {
    return `${this.prefix}:lock:${name}:{${sessionKey}}`;
  }

  async tryAcquire(name: string, sessionKey: string): Promise<HeldLock | undefined> {
    const key = this.key(name, sessionKey);
    const token = randomUUID();
    if ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) !== 'OK') return undefined;
    let held = true;
    const renewal = setInterval(() => {
      this.redis.eval(RENEW, 1, key, token, String(this.ttlMs)).then(
        (renewed) => {
          if (renewed !== 1) held = false;
        },
        () => undefined,
      );
    }, Math.floor(this.ttlMs / 3));
    renewal.unref();
    return {
      get held() {
        return held;
      },
      release: async () => {
        clearInterval(renewal);
        held = false;
        await this.redis.eval(RELEASE, 1, key, token);
      },
    };
  }
}
