import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';

/** KEYS[1] the lease; ARGV: token, ttl ms → 1 while `token` holds it (the expiry is pushed back), else 0. */
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** KEYS[1] the lease; ARGV: token → releases it only for its holder. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type Script = (key: string, ...args: string[]) => Promise<number>;

/** Who holds a lease, as the operator console shows it. */
export interface LeaseHolder {
  /** `<host>/<pid>` of the holding process. */
  holder: string;
  /** Until the lease expires unless renewed. */
  expiresInMs: number;
}

/**
 * A lease one process holds at a time (`<prefix>:leader:{<name>}`), kept by renewing it before it expires:
 * a holder that dies stops renewing, and another takes it once it expires. The token names the holding
 * process (`<host>/<pid>/<random>`) so an operator can see which one it is.
 */
export class LeaderLease {
  readonly token = `${hostname()}/${process.pid}/${randomUUID()}`;
  readonly #renew: Script;
  readonly #release: Script;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly ttlMs: number,
  ) {
    if (!('leaseRenew' in redis)) redis.defineCommand('leaseRenew', { numberOfKeys: 1, lua: RENEW });
    if (!('leaseRelease' in redis)) redis.defineCommand('leaseRelease', { numberOfKeys: 1, lua: RELEASE });
    const commands = redis as unknown as Record<string, Script>;
    this.#renew = commands.leaseRenew!.bind(redis);
    this.#release = commands.leaseRelease!.bind(redis);
  }

  static named(redis: Redis, prefix: string, name: string, ttlMs: number): LeaderLease {
    return new LeaderLease(redis, LeaderLease.keyOf(prefix, name), ttlMs);
  }

  static keyOf(prefix: string, name: string): string {
    return `${prefix}:leader:{${name}}`;
  }

  /** Who holds the named lease now; undefined when nobody does. */
  static async holderOf(redis: Redis, prefix: string, name: string): Promise<LeaseHolder | undefined> {
    const key = LeaderLease.keyOf(prefix, name);
    const [token, ttl] = await Promise.all([redis.get(key), redis.pttl(key)]);
    if (token === null) return undefined;
    return { holder: token.split('/').slice(0, 2).join('/'), expiresInMs: Math.max(0, ttl) };
  }

  async acquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  async renew(): Promise<boolean> {
    return (await this.#renew(this.key, this.token, String(this.ttlMs))) === 1;
  }

  async release(): Promise<void> {
    await this.#release(this.key, this.token);
  }
}
