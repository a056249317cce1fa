import { Redis, type RedisOptions } from 'ioredis';

export type RedisPurpose = 'worker' | 'producer' | 'subscriber';

/**
 * Connection settings per BullMQ's production guide: workers and subscribers wait for Redis forever
 * (`maxRetriesPerRequest: null`), producers fail fast so a webhook can answer 503 and the platform retries.
 * `shouldReconnect` is asked before every reconnection attempt (a service that is stopping says no).
 */
export function createRedis(url: string, purpose: RedisPurpose, shouldReconnect: () => boolean = () => true): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    enableReadyCheck: true,
    // BullMQ's duplicates of a connection copy these options, this function with them: they stop reconnecting too
    retryStrategy: (attempt) => (shouldReconnect() ? Math.min(attempt * 200, 2_000) : null),
    ...(purpose === 'producer'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 }
      : { maxRetriesPerRequest: null }),
  };
  return new Redis(url, options);
}

/**
 * The Redis connections of one service. While it runs they wait for Redis forever; once it stops, a Redis that
 * is away is given up on: no connection reconnects any more (each ends at its next attempt, within 2 s, failing
 * every command that waited for it with "Connection is closed"), and `lost` tells the shutdown to stop waiting
 * for whatever still needs Redis (BullMQ's close waits for its connections' `end`, which never comes to a
 * connection ioredis was told to close while reconnecting).
 */
export class RedisConnections {
  private readonly open = new Set<Redis>();
  private stopping = false;
  private markLost: () => void = () => undefined;
  /**
   * Resolves when, once stopping, Redis is found away: a connection is not ready when the stop begins, or one
   * (BullMQ's copies too) loses its connection meanwhile (ioredis asks to reconnect only after a loss, never
   * after a QUIT or a disconnect of ours).
   */
  readonly lost: Promise<void> = new Promise((resolve) => (this.markLost = resolve));

  create(url: string, purpose: RedisPurpose): Redis {
    const redis = createRedis(url, purpose, () => {
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
  async close(redis: Redis): Promise<void> {
    this.open.delete(redis);
    if (redis.status !== 'ready') {
      redis.disconnect();
      return;
    }
    await redis.quit().catch(() => redis.disconnect());
  }
}

export async function waitUntilReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
