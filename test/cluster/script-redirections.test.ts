import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient, waitUntilReady, type RedisClient } from '../../src/redis/redis-client.js';
import { QueueScripts } from '../../src/redis/scripts.js';
import { clusterNodes, migrateSlot, shardOf } from '../support/redis-cluster-operations.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';

/**
 * Issue 53 (found by the cluster soak): the session queue's scripts run while their slot moves, MOVED once it has
 * moved and ASK while it is half-way, also when another slot's script goes to the same master in the same tick.
 * Auto-pipelined, such a batch handed the redirection to the caller; cluster connections now send each command
 * alone (src/redis/redis-client.ts) and ioredis follows it. A cluster of this file's own: its slots are moved about.
 */
let cluster: RedisCluster;
let redis: RedisClient;
let scripts: QueueScripts;

beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = createRedisClient({ url: cluster.url, cluster: true }, 'worker');
  await waitUntilReady(redis);
  scripts = new QueueScripts(redis);
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

/** Two keys of different slots served by one master (a batch per node would carry both). */
async function twoKeysOnOneMaster(tag: string): Promise<{ moving: string; staying: string; slot: number }> {
  const slotOf = async (key: string) => Number(await redis.call('CLUSTER', 'KEYSLOT', key));
  const moving = `{${tag}-moving}:alive`;
  const slot = await slotOf(moving);
  const { master } = await shardOf(cluster, slot);
  for (let index = 0; ; index++) {
    const staying = `{${tag}-staying-${index}}:alive`;
    const stayingSlot = await slotOf(staying);
    if (stayingSlot !== slot && (await shardOf(cluster, stayingSlot)).master.id === master.id) return { moving, staying, slot };
  }
}

/** Both scripts in one tick: one batch to the node the client thinks serves both slots. */
const beatBoth = (keys: { moving: string; staying: string }) =>
  Promise.all([scripts.run<string[]>('beat', [keys.moving], ['worker-a', 60_000]), scripts.run<string[]>('beat', [keys.staying], ['worker-a', 60_000])]);

describe('the session queue’s scripts while slots move', () => {
  it('follow MOVED when a slot moved away between two batches', async () => {
    const keys = await twoKeysOnOneMaster('moved');
    await beatBoth(keys);
    await migrateSlot(cluster, keys.slot);
    // the client still routes the moved slot to its old master: MOVED for it, OK for the other
    const [moving, staying] = await beatBoth(keys);
    expect(moving[0]).toMatch(/^\d+$/);
    expect(staying[0]).toMatch(/^\d+$/);
    expect(await redis.hget(keys.moving, 'worker-a')).not.toBeNull();
  });

  it('follow ASK while the slot is half-way migrated', async () => {
    const keys = await twoKeysOnOneMaster('asked');
    await beatBoth(keys);
    const nodes = await clusterNodes(cluster);
    const { master: source } = await shardOf(cluster, keys.slot);
    const target = nodes.find((node) => node.role === 'master' && node.id !== source.id)!;
    const on = (port: number) => new Redis({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 0 });
    const [sourceNode, targetNode] = [on(source.port), on(target.port)];
    try {
      await targetNode.call('CLUSTER', 'SETSLOT', keys.slot, 'IMPORTING', source.id);
      await sourceNode.call('CLUSTER', 'SETSLOT', keys.slot, 'MIGRATING', target.id);
      // the key already moved: the source answers ASK for it, the other slot's script runs
      await sourceNode.call('MIGRATE', '127.0.0.1', target.port, '', 0, 5_000, 'KEYS', keys.moving);
      const [moving, staying] = await beatBoth(keys);
      expect(moving[0]).toMatch(/^\d+$/);
      expect(staying[0]).toMatch(/^\d+$/);
      // it ran on the importing node, where the key now lives (asked there with ASKING, as the slot is not its yet)
      const [, [, beatUntil]] = (await targetNode.pipeline().asking().hget(keys.moving, 'worker-a').exec()) as [unknown, [unknown, string]];
      expect(Number(beatUntil)).toBe(Number(moving[0]) + 60_000);
    } finally {
      for (const node of [targetNode, sourceNode]) await node.call('CLUSTER', 'SETSLOT', keys.slot, 'NODE', target.id);
      for (const other of nodes.filter((node) => node.role === 'master' && node.id !== source.id && node.id !== target.id)) {
        const client = on(other.port);
        await client.call('CLUSTER', 'SETSLOT', keys.slot, 'NODE', target.id);
        client.disconnect();
      }
      sourceNode.disconnect();
      targetNode.disconnect();
    }
  });
});
