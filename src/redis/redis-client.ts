import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** One client of the service's Redis: a single server (or Sentinel) or a Redis Cluster (REDIS_CLUSTER=true). */
export type RedisClient = Redis | Cluster;

export interface RedisTarget {
  /** `redis://host:port`, or with a cluster comma-separated seeds `redis://a:7000,redis://b:7001`. */
  url: string;
  cluster: boolean;
}

/**
 * What a connection is for, per BullMQ's production guide: workers and subscribers wait for Redis forever
 * (`maxRetriesPerRequest: null`); producers fail fast so a webhook can answer 503 and the platform retries;
 * a blocking connection only waits on the shard's marker.
 */
export type ConnectionPurpose = 'worker' | 'producer' | 'subscriber' | 'blocking';

function optionsFor(purpose: ConnectionPurpose, shouldReconnect: () => boolean): RedisOptions {
  return {
    enableReadyCheck: true,
    // BullMQ's duplicates of a connection copy these options, this function with them: they stop reconnecting too
    retryStrategy: (attempt) => (shouldReconnect() ? Math.min(attempt * 200, 2_000) : null),
    ...(purpose === 'producer' ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 } : { maxRetriesPerRequest: null }),
    // many turns at once each send a script call per step: the calls of one tick go out in one write (and Redis
    // reads them in one read) instead of one system call each. Our blocking and subscriber connections send one
    // command at a time (BullMQ's blocking copy of a worker connection pipelines too: it only ever sends its pop)
    ...(purpose === 'producer' || purpose === 'worker' ? { enableAutoPipelining: true } : {}),
  };
}

/** The seeds of a cluster URL: every `redis://host:port` of the comma-separated list (user and password from the first). */
export function clusterSeeds(url: string): { nodes: Array<{ host: string; port: number }>; username?: string; password?: string; tls: boolean } {
  const parts = url.split(',').map((part) => part.trim()).filter(Boolean);
  const parsed = parts.map((part) => new URL(part.includes('://') ? part : `redis://${part}`));
  const first = parsed[0];
  if (!first) throw new Error('REDIS_URL: no cluster seed given');
  return {
    nodes: parsed.map((seed) => ({ host: seed.hostname, port: Number(seed.port || 6379) })),
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    tls: first.protocol === 'rediss:',
  };
}

/** `shouldReconnect` is asked before every reconnection attempt (a service that is stopping says no). */
export function createRedisClient(target: RedisTarget, purpose: ConnectionPurpose, shouldReconnect: () => boolean = () => true): RedisClient {
  const options = optionsFor(purpose, shouldReconnect);
  if (!target.cluster) return new Redis(target.url, options);
  const seeds = clusterSeeds(target.url);
  // No auto-pipelining on a cluster: ioredis batches the commands of one tick per node, whatever their slots, and
  // when a slot moves (a migration, a failover) the batch hands MOVED and ASK to the callers instead of following
  // them (ioredis issue 2075), and its reply bookkeeping can throw out of a callback and end the process
  // ("results[i] is not iterable", issue 1931; both seen in the cluster soak). Each command goes alone, and
  // ioredis follows its redirections.
  const { enableOfflineQueue, enableAutoPipelining: _batchesPerNode, ...redisOptions } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: {
      ...redisOptions,
      ...(seeds.username ? { username: seeds.username } : {}),
      ...(seeds.password ? { password: seeds.password } : {}),
      ...(seeds.tls ? { tls: {} } : {}),
    },
    enableReadyCheck: true,
    ...(enableOfflineQueue === false ? { enableOfflineQueue: false } : {}),
    clusterRetryStrategy: (attempt) => (shouldReconnect() ? Math.min(attempt * 200, 2_000) : null),
    slotsRefreshTimeout: 2_000,
  };
  return new Cluster(seeds.nodes, clusterOptions);
}

export async function waitUntilReady(redis: RedisClient, timeoutMs = 10_000): Promise<void> {
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
