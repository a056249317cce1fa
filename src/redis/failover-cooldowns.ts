import type { FailoverCooldowns } from '../llm/failover-cooldowns.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

/**
 * The cool-downs in Redis: one key per model, `{<prefix>:llm}:cooldown:<provider:model>`, holding the time the
 * cool-down ends, set with `SET … PX` so Redis forgets it when it is over. Read with one MGET per model call of a
 * chain (never for a model without fallbacks); written once per failed attempt. Every key of the family shares
 * one hash tag, so the MGET of a chain is a single-slot command on a Redis Cluster too.
 */
export class RedisFailoverCooldowns implements FailoverCooldowns {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly clock: () => number = Date.now,
  ) {}

  keyOf(model: string): string {
    return this.keys.modelCooldown(model);
  }

  async coolingOf(models: readonly string[]): Promise<Set<string>> {
    if (models.length === 0) return new Set();
    const values = await this.redis.mget(...models.map((model) => this.keyOf(model)));
    return new Set(models.filter((_model, index) => values[index] !== null));
  }

  async coolDown(model: string, ms: number): Promise<void> {
    const milliseconds = Math.floor(ms);
    if (milliseconds <= 0) return;
    await this.redis.set(this.keyOf(model), String(this.clock() + milliseconds), 'PX', milliseconds);
  }
}
