import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import { QueueScripts } from './scripts.js';

/** A day: a turn that is not finished by then was abandoned long before. */
const TTL_SECONDS = 24 * 60 * 60;

/**
 * What a running turn keeps in Redis beside its lease, in its session's slot: the completed steps (checkpoint) and
 * the delivery record (the computed answer and what was sent). Only the turn's current holder writes; the
 * release of the turn deletes both. Values are opaque strings here; the turn layer gives them meaning.
 */
export class TurnStateStore {
  readonly #scripts: QueueScripts;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.#scripts = new QueueScripts(redis);
  }

  /** `lost` when `holder` no longer holds the turn (nothing was written). */
  async appendStep(sessionKey: string, turnId: string, holder: string, step: string): Promise<'ok' | 'lost'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run('append-step', [keys.turns, keys.steps(turnId)], [turnId, holder, step, TTL_SECONDS]);
  }

  async loadSteps(sessionKey: string, turnId: string): Promise<string[]> {
    return this.redis.lrange(this.keys.session(sessionKey).steps(turnId), 0, -1);
  }

  /** Writes fields of the turn's delivery record; `lost` when `holder` no longer holds the turn. */
  async saveDelivery(sessionKey: string, turnId: string, holder: string, fields: Record<string, string>): Promise<'ok' | 'lost'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run('save-delivery', [keys.turns, keys.delivery(turnId)], [turnId, holder, TTL_SECONDS, ...Object.entries(fields).flat()]);
  }

  async loadDelivery(sessionKey: string, turnId: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.session(sessionKey).delivery(turnId));
  }
}
