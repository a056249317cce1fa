import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { KeySpace } from '../../src/redis/key-space.js';
import { createRedisClient, type RedisClient } from '../../src/redis/redis-client.js';
import { WorkerBeat } from '../../src/redis/worker-beat.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { uniqueName } from '../support/services.js';

/**
 * Issue 53: one master of a Redis Cluster stalls (SIGSTOP: a slow or hung master, shorter than the cluster's node
 * timeout). A worker's beats in the shards of the other masters must go on: when every shard's beat waited for
 * the slowest, the worker stopped beating everywhere and its turns were taken over on every shard. The cluster is
 * this file's own (stalling a master of the shared one would fail the tests beside it).
 */
const TTL_MS = 1_000;
const STALL_MS = 3 * TTL_MS;
const SHARDS = 6;
let cluster: RedisCluster;
let beating: RedisClient;
let reading: RedisClient;

beforeAll(async () => {
  // a long node timeout: the stalled master is never marked failed, so the others keep serving their slots
  cluster = await startRedisCluster({ nodeTimeoutMs: 30_000 });
  beating = createRedisClient({ url: cluster.url, cluster: true }, 'worker');
  reading = createRedisClient({ url: cluster.url, cluster: true }, 'worker');
}, 120_000);

afterAll(async () => {
  beating?.disconnect();
  reading?.disconnect();
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The port of the master serving a key's slot. */
async function masterPortOf(key: string): Promise<number> {
  const slot = Number(await reading.call('CLUSTER', 'KEYSLOT', key));
  const ranges = (await reading.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
  return ranges.find(([from, to]) => slot >= from && slot <= to)![2][1];
}

describe('WorkerBeat on a Redis Cluster with one master stalled', () => {
  it('goes on beating in the shards of the other masters', async () => {
    const keys = new KeySpace(uniqueName('beat'), SHARDS, true);
    const ports = await Promise.all(keys.shards().map((shard) => masterPortOf(shard.alive)));
    const stalledPort = ports[0]!;
    const elsewhere = keys.shards().filter((_, index) => ports[index] !== stalledPort);
    expect(elsewhere.length).toBeGreaterThan(0);
    const victim = cluster.nodes.find((node) => node.port === stalledPort)!;

    const beat = new WorkerBeat(beating, keys, 'worker-1', createLogger({ level: 'silent' }), { intervalMs: 200, ttlMs: TTL_MS });
    await beat.start();
    process.kill(victim.pid!, 'SIGSTOP');
    const lapses: string[] = [];
    try {
      const until = Date.now() + STALL_MS;
      while (Date.now() < until) {
        await sleep(200);
        for (const shard of elsewhere) {
          const beatingUntil = Number(await reading.hget(shard.alive, 'worker-1'));
          if (beatingUntil <= Date.now()) lapses.push(`shard ${shard.shard} silent ${Date.now() - beatingUntil} ms`);
        }
      }
    } finally {
      process.kill(victim.pid!, 'SIGCONT');
    }
    await beat.stop(true);
    expect(lapses).toEqual([]);
  }, 60_000);
});
