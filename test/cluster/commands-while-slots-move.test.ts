import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient, waitUntilReady, type ConnectionPurpose, type RedisClient } from '../../src/redis/redis-client.js';
import { QueueScripts } from '../../src/redis/scripts.js';
import { migrateSlot } from '../support/redis-cluster-operations.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';

/**
 * Issue 53 (the cluster soak: a worker ended by "results[i] is not iterable" inside ioredis while a slot moved,
 * and in CI the gateway went away that way and every chat's next message was never taken). With auto-pipelining,
 * ioredis batches one tick's commands per node whatever their slots, and a batch that meets a moving slot hands
 * MOVED and ASK back to the callers. The service's cluster connections send each command alone, and every
 * command is answered while a busy slot migrates back and forth. A cluster of this file's own: its slots move.
 */
let cluster: RedisCluster;
const clients: RedisClient[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 120_000);

afterAll(async () => {
  for (const redis of clients) redis.disconnect();
  await cluster?.stop();
});

describe('the service’s cluster connections while a slot migrates', () => {
  it.each<ConnectionPurpose>(['worker', 'producer'])('a %s connection gets every command answered, scripts and plain commands alike', async (purpose) => {
    const redis = createRedisClient({ url: cluster.url, cluster: true }, purpose);
    clients.push(redis);
    await waitUntilReady(redis);
    const scripts = new QueueScripts(redis);
    const hot = `{hot-${purpose}}`;
    const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', hot));
    const failures = new Map<string, number>();
    let answered = 0;
    let moving = true;
    // half the callers on the moving slot, half on slots of their own (some on the same master: one batch)
    const caller = async (index: number) => {
      const key = index % 2 === 0 ? `${hot}:k${index % 7}` : `{cold-${purpose}-${index}}:k`;
      while (moving) {
        const replies = await Promise.allSettled([
          redis.hset(key, 'caller', String(index)),
          redis.hget(key, 'caller'),
          redis.incr(`${key}:count`),
          scripts.run('beat', [`${key}:beat`], [`worker-${index}`, 60_000]),
        ]);
        for (const reply of replies) {
          if (reply.status === 'fulfilled') answered += 1;
          else {
            const what = String((reply.reason as Error).message).slice(0, 40);
            failures.set(what, (failures.get(what) ?? 0) + 1);
          }
        }
      }
    };
    const callers = Array.from({ length: 40 }, (_, index) => caller(index));

    for (let round = 0; round < 3; round++) await migrateSlot(cluster, slot, { batch: 1, pauseMs: 5 });
    moving = false;
    await Promise.all(callers);

    expect(Object.fromEntries(failures)).toEqual({});
    expect(answered).toBeGreaterThan(1_000);
  }, 180_000);
});
