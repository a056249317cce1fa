import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNodes, killMasterForFailover, plannedFailover, shardOf } from './redis-cluster-operations.js';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';

/** The cluster the cluster tests and the benchmark use: three masters that serve every slot, and a crash and restart of one. */
describe('startRedisCluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(
      cluster.url.split(',').map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) })),
      { clusterRetryStrategy: (times) => Math.min(times * 100, 1_000), redisOptions: { maxRetriesPerRequest: 1 } },
    );
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('gives the REDIS_URL form of three masters that share all 16384 slots', async () => {
    expect(cluster.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+,redis:\/\/127\.0\.0\.1:\d+,redis:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.pids()).toHaveLength(3);
    const shards = (await client.call('CLUSTER', 'SHARDS')) as unknown[];
    expect(shards).toHaveLength(3);
    // keys spread over the masters are written and read back through the seeds
    const keys = Array.from({ length: 60 }, (_, index) => `cluster-support:${index}`);
    await Promise.all(keys.map((key, index) => client.set(key, String(index))));
    expect(await Promise.all(keys.map((key) => client.get(key)))).toEqual(keys.map((_, index) => String(index)));
    const perNode = await Promise.all(client.nodes('master').map((node) => node.dbsize()));
    expect(perNode.every((count) => count > 0)).toBe(true);
  });

  it('takes one master down and brings it back on the same port with its slots', async () => {
    const slot = async (key: string) => Number(await client.call('CLUSTER', 'KEYSLOT', key));
    const victim = cluster.nodes[1]!;
    const slotsOf = async () => {
      const slots = (await client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      return slots.filter(([, , [, port]]) => port === victim.port).map(([from, to]) => [from, to] as const);
    };
    const ranges = await slotsOf();
    expect(ranges.length).toBeGreaterThan(0);
    const onVictim = Array.from({ length: 200 }, (_, index) => `victim:${index}`);
    let key: string | undefined;
    for (const candidate of onVictim) {
      const candidateSlot = await slot(candidate);
      if (ranges.some(([from, to]) => candidateSlot >= from && candidateSlot <= to)) {
        key = candidate;
        break;
      }
    }
    expect(key).toBeDefined();
    await client.set(key!, 'before');

    const pid = victim.pid!;
    await cluster.kill(1);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(cluster.pids()).toHaveLength(2);
    await expect(client.get(key!)).rejects.toThrow();

    await cluster.restart(1);
    expect(cluster.pids()).toHaveLength(3);
    expect(victim.pid).not.toBe(pid);
    expect(await slotsOf()).toEqual(ranges);
    // no persistence: the restarted master comes back empty, and serves its slots again
    expect(await client.get(key!)).toBeNull();
    await client.set(key!, 'after');
    expect(await client.get(key!)).toBe('after');
  }, 60_000);

  it('stops every node', async () => {
    const pids = cluster.pids();
    await cluster.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(cluster.pids()).toHaveLength(0);
  });
});

/** The soak's cluster (issue 53): a replica per master, a crash its replica takes over from, and a planned failover. */
describe('startRedisCluster with replicas', () => {
  let cluster: RedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 1, persistent: true, nodeTimeoutMs: 2_000, timeoutMs: 60_000 });
    client = new Cluster(
      cluster.url.split(',').map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) })),
      { clusterRetryStrategy: (times) => Math.min(times * 100, 1_000), redisOptions: { maxRetriesPerRequest: 1 } },
    );
  }, 90_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('promotes the replica of a killed master, takes the old master back as its replica, and swaps them on CLUSTER FAILOVER', async () => {
    expect(cluster.nodes).toHaveLength(6);
    const nodes = await clusterNodes(cluster);
    expect(nodes.filter((node) => node.role === 'master')).toHaveLength(3);
    expect(nodes.filter((node) => node.role === 'replica')).toHaveLength(3);
    const key = 'replicated-key';
    const slot = Number(await client.call('CLUSTER', 'KEYSLOT', key));
    await client.set(key, 'written');
    // WAIT: the replica has the write before its master dies (replication is asynchronous otherwise)
    const { master } = await shardOf(cluster, slot);
    // WAIT has no key: a cluster client would send it to any node, so it goes to the key's master itself
    const masterConnection = client.nodes('master').find((node) => node.options.port === master.port);
    expect(await masterConnection!.call('WAIT', 1, 5_000)).toBe(1);

    const crash = await killMasterForFailover(cluster, slot, 0);
    expect(crash.killed).toBe(master.port);
    const after = await clusterNodes(cluster);
    expect(after.find((node) => node.port === crash.promoted)?.role).toBe('master');
    expect(after.find((node) => node.port === crash.killed)?.role).toBe('replica');
    expect(await client.get(key)).toBe('written');

    const planned = await plannedFailover(cluster, slot);
    expect(planned).toEqual({ demoted: crash.promoted, promoted: crash.killed });
    expect(await client.get(key)).toBe('written');
  }, 120_000);
});
