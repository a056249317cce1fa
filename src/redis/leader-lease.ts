import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KeySpace } from './key-space.js';
import { LuaScripts } from './lua-scripts.js';
import type { RedisClient } from './redis-client.js';


const SCRIPTS = { 'token-renew': 1, 'token-release': 1 } as const;

/** Who holds a lease, as the operator console shows it. */
export interface LeaseHolder {
  /** `<host>/<pid>` of the holding process. */
  holder: string;
  /** Until the lease expires unless renewed. */
  expiresInMs: number;
}

/**
 * A lease one process holds at a time (`{<prefix>:lease:<name>}`), kept by renewing it before it expires:
 * a holder that dies stops renewing, and another takes it once it expires. The token names the holding
 * process (`<host>/<pid>/<random>`) so an operator can see which one it is.
 */
export class LeaderLease {
  readonly token = `${hostname()}/${process.pid}/${randomUUID()}`;
  readonly #scripts: LuaScripts<keyof typeof SCRIPTS>;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    readonly ttlMs: number,
  ) {
    this.#scripts = new LuaScripts(redis, SCRIPTS);
  }

  static named(redis: RedisClient, keys: KeySpace, name: string, ttlMs: number): LeaderLease {
    return new LeaderLease(redis, keys.lease(name), ttlMs);
  }

  /** Who holds the named lease now; undefined when nobody does. */
  static async holderOf(redis: RedisClient, keys: KeySpace, name: string): Promise<LeaseHolder | undefined> {
    const key = keys.lease(name);
    const [token, ttl] = await Promise.all([redis.get(key), redis.pttl(key)]);
    if (token === null) return undefined;
    return { holder: token.split('/').slice(0, 2).join('/'), expiresInMs: Math.max(0, ttl) };
  }

  async acquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  async renew(): Promise<boolean> {
    return (await this.#scripts.run<number>('token-renew', [this.key], [this.token, this.ttlMs])) === 1;
  }

  async release(): Promise<void> {
    await this.#scripts.run('token-release', [this.key], [this.token]);
  }
}
