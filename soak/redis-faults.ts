import { startRedisCluster } from '../test/support/redis-cluster.js';
import { busiestSlot, killMasterForFailover, migrateSlot, nodeIndex, plannedFailover, shardOf } from '../test/support/redis-cluster-operations.js';
import type { ModeFault } from './chaos.js';
import { startSoakRedis } from './redis-server.js';
import type { SoakSettings } from './settings.js';

/** The soak's Redis (one server or a cluster), the environment the service needs for it, and its faults. */
export interface SoakRedisMode {
  env: Record<string, string>;
  /** host:port of a single server (for the stall proxies); undefined for a cluster. */
  address: { host: string; port: number } | undefined;
  /** Every port a Redis server of the mode listens on. */
  ports: number[];
  faults: ModeFault[];
  stop(): Promise<void>;
}

/** A cluster node is marked failing this soon, so a killed master's replica takes over within a few seconds. */
const CLUSTER_NODE_TIMEOUT_MS = 2_000;

export async function startRedisMode(settings: SoakSettings): Promise<SoakRedisMode> {
  if (settings.redis === 'single') {
    const redis = await startSoakRedis();
    const url = new URL(redis.url);
    return {
      env: { REDIS_URL: redis.url },
      address: { host: url.hostname, port: Number(url.port) },
      ports: [Number(url.port)],
      faults: settings.redisRestarts
        ? [
            { what: 'redis SIGTERM', fraction: 0.4, inject: async () => (await redis.restart('SIGTERM', 3_000), 'redis') },
            { what: 'redis SIGKILL', fraction: 0.75, inject: async () => (await redis.restart('SIGKILL', 3_000), 'redis') },
          ]
        : [],
      stop: () => redis.stop(),
    };
  }

  // three masters with a replica each; every node keeps an AOF fsynced on every write, as the single server does
  const cluster = await startRedisCluster({ masters: 3, replicas: 1, persistent: true, nodeTimeoutMs: CLUSTER_NODE_TIMEOUT_MS, timeoutMs: 60_000 });
  const busy = async () => (await busiestSlot(cluster)).slot;
  const faults: ModeFault[] = [];
  if (settings.redisRestarts) {
    faults.push({
      // down for less than the node timeout: no failover, the master comes back with its AOF
      what: 'redis SIGTERM',
      fraction: 0.2,
      inject: async () => {
        const { master } = await shardOf(cluster, await busy());
        const index = nodeIndex(cluster, master.port);
        await cluster.kill(index, 'SIGTERM');
        await cluster.restart(index);
        return `master :${master.port}`;
      },
    });
    faults.push({
      what: 'cluster master SIGKILL, replica promoted',
      fraction: 0.35,
      inject: async () => {
        const { killed, promoted } = await killMasterForFailover(cluster, await busy(), 3_000);
        return `master :${killed} killed, replica :${promoted} promoted, :${killed} back as its replica`;
      },
    });
  }
  faults.push({
    what: 'cluster failover (planned)',
    fraction: 0.5,
    inject: async () => {
      const { demoted, promoted } = await plannedFailover(cluster, await busy());
      return `:${promoted} took over from :${demoted}`;
    },
  });
  for (let index = 0; index < settings.slotMigrations; index++) {
    faults.push({
      what: 'slot migration',
      fraction: 0.65 + (0.25 * index) / Math.max(1, settings.slotMigrations),
      inject: async () => {
        const { slot, keys } = await busiestSlot(cluster);
        const moved = await migrateSlot(cluster, slot, { batch: Math.max(1, Math.ceil(keys / 40)), pauseMs: 50 });
        return `slot ${slot} (${moved.keys} keys) :${moved.from} → :${moved.to}`;
      },
    });
  }
  return {
    env: { REDIS_URL: cluster.url, REDIS_CLUSTER: 'true' },
    address: undefined,
    ports: cluster.nodes.map((node) => node.port),
    faults,
    stop: () => cluster.stop(),
  };
}
