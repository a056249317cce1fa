import { createRedisClient, type ConnectionPurpose, type RedisClient, type RedisTarget } from './redis-client.js';

/**
 * The Redis connections of one service. While it runs they wait for Redis forever; once it stops, a Redis that
 * is away is given up on: no connection reconnects any more (each ends at its next attempt, within 2 s, failing
 * every command that waited for it with "Connection is closed"), and `lost` tells the shutdown to stop waiting
 * for whatever still needs Redis (BullMQ's close waits for its connections' `end`, which never comes to a
 * connection ioredis was told to close while reconnecting).
 */
export class RedisConnections {
  private readonly open = new Set<RedisClient>();
  private stopping = false;
  private markLost: () => void = () => undefined;
  /**
   * Resolves when, once stopping, Redis is found away: a connection is not ready when the stop begins, or one
   * (BullMQ's copies too) loses its connection meanwhile (ioredis asks to reconnect only after a loss, never
   * after a QUIT or a disconnect of ours).
   */
  readonly lost: Promise<void> = new Promise((resolve) => (this.markLost = resolve));

  constructor(private readonly target: RedisTarget) {}

  create(purpose: ConnectionPurpose): RedisClient {
    const redis = createRedisClient(this.target, purpose, () => {
      if (!this.stopping) return true;
      this.markLost();
      return false;
    });
    this.open.add(redis);
    redis.once('end', () => this.open.delete(redis));
    return redis;
  }

  /** `work`, or, should Redis be found away before it ends, `onLost()` and no more waiting for it. */
  async unlessLost(work: Promise<unknown>, onLost: () => void): Promise<void> {
    let ended = false;
    await Promise.race([
      work.finally(() => (ended = true)),
      this.lost.then(() => {
        if (!ended) onLost();
      }),
    ]);
  }

  /** From now on a lost connection stays lost. */
  giveUpWhenAway(): void {
    this.stopping = true;
    for (const redis of this.open) if (redis.status !== 'ready') this.markLost();
  }

  /** QUIT when connected (pending replies arrive first), else just close. */
  async close(redis: RedisClient): Promise<void> {
    this.open.delete(redis);
    if (redis.status !== 'ready') {
      redis.disconnect();
      return;
    }
    await redis.quit().catch(() => redis.disconnect());
  }
}
