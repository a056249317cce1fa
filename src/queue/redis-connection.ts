import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connection settings per BullMQ's production guide: workers and subscribers wait for Redis forever
 * (`maxRetriesPerRequest: null`), producers fail fast so a webhook can answer 503 and the platform retries.
 */
export function createRedis(url: string, purpose: 'worker' | 'producer' | 'subscriber'): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    enableReadyCheck: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    ...(purpose === 'producer'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 }
      : { maxRetriesPerRequest: null }),
  };
  return new Redis(url, options);
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
