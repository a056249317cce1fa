import type { TurnLease, TurnStatePort } from '../core/turn-ports.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import { QueueScripts } from './scripts.js';

/** A day: a turn that is not finished by then was abandoned long before. */
const TTL_SECONDS = 24 * 60 * 60;

export type { TurnLease } from '../core/turn-ports.js';

/**
 * What a running turn keeps in Redis beside its lease, in its session's slot: the completed steps (its checkpoint,
 * a LIST) and its delivery record (a HASH: the computed answer, every stream's parts out and the part in flight).
 * Only the turn's current holder writes (the scripts compare the holder first); the turn's release deletes both.
 * Values are opaque strings here; the turn layer gives them meaning.
 */
export class TurnStateStore implements TurnStatePort {
  readonly #scripts: QueueScripts;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.#scripts = new QueueScripts(redis);
  }

  /** `lost` when `holder` no longer holds the turn (nothing was written). */
  async append(sessionKey: string, turnId: string, holder: string, step: unknown): Promise<'ok' | 'lost'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run('append-step', [keys.turns, keys.steps(turnId)], [turnId, holder, JSON.stringify(step), TTL_SECONDS]);
  }

  async load(sessionKey: string, turnId: string): Promise<unknown[]> {
    const steps = await this.redis.lrange(this.keys.session(sessionKey).steps(turnId), 0, -1);
    return steps.map((step) => JSON.parse(step) as unknown);
  }

  /**
   * Writes fields of the turn's delivery record; `lost` when the lease holder is someone else now, `expired` (an
   * intent only) when its lease ran out or its worker stopped beating (nothing written either way).
   */
  async save(lease: TurnLease, fields: Record<string, string>, options: { intent?: boolean } = {}): Promise<'ok' | 'lost' | 'expired'> {
    const pairs = Object.entries(fields).flat();
    if (pairs.length === 0) return 'ok';
    const keys = this.keys.session(lease.sessionKey);
    return this.#scripts.run('save-delivery', [keys.turns, keys.delivery(lease.turnId), keys.alive], [lease.turnId, lease.holder, TTL_SECONDS, options.intent ? '1' : '', ...pairs]);
  }

  /** The whole delivery record (read only when a turn resumes). */
  async delivery(sessionKey: string, turnId: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.session(sessionKey).delivery(turnId));
  }

  async deliveryField(sessionKey: string, turnId: string, field: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.session(sessionKey).delivery(turnId), field)) ?? undefined;
  }
}
