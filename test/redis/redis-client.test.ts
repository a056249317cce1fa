import { afterAll, describe, expect, it } from 'vitest';
import { KeySpace } from '../../src/redis/key-space.js';
import { createRedisClient, waitUntilReady, type ConnectionPurpose, type RedisClient } from '../../src/redis/redis-client.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

const target = testRedisTarget();
const prefix = uniqueName('client');
const keys = new KeySpace(prefix, 4, target.cluster);
const clients: RedisClient[] = [];

function client(purpose: ConnectionPurpose): RedisClient {
  const redis = createRedisClient(target, purpose);
  clients.push(redis);
  return redis;
}

afterAll(async () => {
  const [first] = clients;
  if (first) await deleteTestKeys(first, `{${prefix}*`);
  await Promise.all(clients.map((redis) => redis.quit()));
});

/** The i-th test key: six sessions' keys, so several slots (on a cluster, several masters). */
const keyOf = (tag: string, i: number) => `${keys.session(`main:telegram:1:dm:${i % 6}`).meta}:${tag}:${i}`;

/** Sixty writes of one tick. */
function writeInOneTick(redis: RedisClient, tag: string): { queuedAtOnce: number; done: Promise<unknown[]> } {
  const writes: Array<Promise<unknown>> = [];
  for (let i = 0; i < 60; i++) writes.push(redis.set(keyOf(tag, i), String(i)));
  return { queuedAtOnce: redis.autoPipelineQueueSize, done: Promise.all(writes) };
}

describe('the service’s Redis connections', () => {
  // on a cluster each command goes alone: a batch per node hands MOVED and ASK back (test/cluster/commands-while-slots-move.test.ts)
  it.each<ConnectionPurpose>(['worker', 'producer'])('a %s connection sends the commands of one tick together (one server), each still answered', async (purpose) => {
    const redis = client(purpose);
    await waitUntilReady(redis);
    const { queuedAtOnce, done } = writeInOneTick(redis, purpose);
    expect(queuedAtOnce).toBe(target.cluster ? 0 : 60);
    expect(await done).toEqual(Array.from({ length: 60 }, () => 'OK'));
    const stored = await Promise.all(Array.from({ length: 60 }, (_, i) => redis.get(keyOf(purpose, i))));
    expect(stored).toEqual(Array.from({ length: 60 }, (_, i) => String(i)));
  });

  it('a blocking connection sends each command as it comes (its BZPOPMIN must not hold others back)', async () => {
    const redis = client('blocking');
    await waitUntilReady(redis);
    const { queuedAtOnce, done } = writeInOneTick(redis, 'blocking');
    expect(queuedAtOnce).toBe(0);
    expect((await done).length).toBe(60);
  });
});
