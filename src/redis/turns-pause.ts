import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

/**
 * An operator's pause of every turn (the Pause of the `turns` entry in the queue view): while it is set no worker
 * starts a turn (running ones finish, messages keep queueing). Workers read it once a second, not per message.
 */
export class TurnsPause {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  async isPaused(): Promise<boolean> {
    return (await this.redis.exists(this.keys.turnsPaused)) === 1;
  }

  /** `by`: who paused (kept as the value, for the logs and the page). */
  async pause(by = 'operator'): Promise<void> {
    await this.redis.set(this.keys.turnsPaused, `${by} ${new Date().toISOString()}`);
  }

  async resume(): Promise<void> {
    await this.redis.del(this.keys.turnsPaused);
  }
}
