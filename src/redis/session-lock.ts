import { randomUUID } from 'node:crypto';
import type { HeldLock, SessionLockPort } from '../core/turn-ports.js';
import type { KeySpace } from './key-space.js';
import { LuaScripts } from './lua-scripts.js';
import type { RedisClient } from './redis-client.js';

const SCRIPTS = { 'token-renew': 1, 'token-release': 1 } as const;

export type { HeldLock } from '../core/turn-ports.js';

/**
 * A per-session try-lock: SET NX with a random token and a TTL, renewed while held,
 * released by compare-and-delete so a holder never frees a lock that is no longer its own.
 */
export class SessionLock implements SessionLockPort {
  readonly #scripts: LuaScripts<keyof typeof SCRIPTS>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly ttlMs = 30_000,
  ) {
    this.#scripts = new LuaScripts(redis, SCRIPTS);
  }

  private key(name: string, sessionKey: string): string {
    return this.keys.session(sessionKey).lock(name);
  }

  async tryAcquire(name: string, sessionKey: string): Promise<HeldLock | undefined> {
    const key = this.key(name, sessionKey);
    const token = randomUUID();
    if ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) !== 'OK') return undefined;
    let held = true;
    const renewal = setInterval(() => {
      this.#scripts.run<number>('token-renew', [key], [token, this.ttlMs]).then(
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
        await this.#scripts.run('token-release', [key], [token]);
      },
    };
  }
}
