import type { Redis } from 'ioredis';
import { queueLua } from './lua-scripts.js';

/** A day: a turn not finished by then was abandoned long before (TURN_RETRY). */
const TTL_SECONDS = 24 * 60 * 60;

type SaveScript = (holders: string, delivery: string, turnId: string, holder: string, ttl: string, ...fields: string[]) => Promise<number>;

/** Who may write a turn's delivery record: the turn's current lease holder. */
export interface TurnLease {
  sessionKey: string;
  turnId: string;
  holder: string;
}

/**
 * A turn's delivery record in Redis, beside its lease in the session's hash slot:
 * `<prefix>:s:{<sessionKey>}:delivery:<turnId>`, a HASH of opaque JSON fields (see turn/delivery-records.ts).
 * Every write is fenced by the lease holder (save-delivery.lua); reads are plain.
 */
export class DeliveryStore {
  readonly #save: SaveScript;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    if (!('saveDelivery' in redis)) redis.defineCommand('saveDelivery', { numberOfKeys: 2, lua: queueLua('save-delivery.lua') });
    this.#save = (redis as unknown as Record<string, SaveScript>).saveDelivery!.bind(redis);
  }

  private base(sessionKey: string): string {
    return `${this.prefix}:s:{${sessionKey}}`;
  }

  private key(sessionKey: string, turnId: string): string {
    return `${this.base(sessionKey)}:delivery:${turnId}`;
  }

  /** `lost` when the lease holder is someone else now (nothing was written). */
  async save(lease: TurnLease, fields: Record<string, string>): Promise<'ok' | 'lost'> {
    const pairs = Object.entries(fields).flat();
    if (pairs.length === 0) return 'ok';
    const saved = await this.#save(`${this.base(lease.sessionKey)}:holders`, this.key(lease.sessionKey, lease.turnId), lease.turnId, lease.holder, String(TTL_SECONDS), ...pairs);
    return saved === 1 ? 'ok' : 'lost';
  }

  async load(sessionKey: string, turnId: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.key(sessionKey, turnId));
  }

  async field(sessionKey: string, turnId: string, field: string): Promise<string | undefined> {
    return (await this.redis.hget(this.key(sessionKey, turnId), field)) ?? undefined;
  }

  async clear(sessionKey: string, turnId: string): Promise<void> {
    await this.redis.del(this.key(sessionKey, turnId));
  }
}
