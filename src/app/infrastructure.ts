import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { acquireDataDirLock, type DataDirLock } from '../lifecycle/data-dir-lock.js';
import { ProcessActivity } from '../lifecycle/process-activity.js';
import { stopBudget, StopSteps, type StopBudget } from '../lifecycle/stop-steps.js';
import { moduleLogger, type Logger } from '../observability/logger.js';
import { Metrics, statementKind } from '../observability/metrics.js';
import { startEmbeddedRedis } from '../queue/embedded-redis.js';
import { KeySpace, RedisConnections, waitUntilReady, type ConnectionPurpose, type RedisClient } from '../redis/index.js';
import { databaseOptionsOf, migrateDatabase, openDatabase, type Database } from '../store/index.js';

/**
 * What every role stands on: the data folder's lock, the embedded redis-server (REDIS_URL unset), PostgreSQL
 * (migrated), the Redis connections and key space, metrics, and the stop: steps run in the reverse order of start,
 * all within SHUTDOWN_GRACE_MS.
 */
export interface Infrastructure {
  config: AppConfig;
  logger: Logger;
  metrics: Metrics;
  database: Database;
  keys: KeySpace;
  /**
   * The process's connection for commands: in a gateway (or `all`) it fails fast, so a webhook answers 503 and
   * the platform retries; in a worker-only process it waits for Redis.
   */
  redis: RedisClient;
  /**
   * `redis`'s twin for BullMQ's queues. BullMQ defines its ~60 scripts on the connection it is given, and ioredis
   * copies every defined script of a connection onto each auto-pipelined batch: on `redis` every message's
   * commands would pay for them.
   */
  bullmqRedis: RedisClient;
  /** A connection of its own for a part that needs one (a worker's, a subscriber, a blocking wait), closed on stop. */
  connection(name: string, purpose: ConnectionPurpose): RedisClient;
  lock: DataDirLock | undefined;
  /** Inbound messages being handled and turns running (for the idle heap reclaim, see lifecycle/). */
  activity: ProcessActivity;
  onStop(name: string, stop: (budget: StopBudget) => Promise<unknown>): void;
  /** A stop step that needs Redis: not waited for once Redis is found away during the stop. */
  onStopWithRedis(name: string, stop: (budget: StopBudget) => Promise<unknown>): void;
  /** Resolves `work`, or gives up on it (`onLost`) when Redis is found away during the stop. */
  unlessRedisLost(work: Promise<unknown>, onLost: () => void): Promise<void>;
  stopAll(): Promise<void>;
}

export async function buildInfrastructure(config: AppConfig, logger = moduleLogger('app')): Promise<Infrastructure> {
  const steps = new StopSteps(logger);
  const onStop = (name: string, stop: (budget: StopBudget) => Promise<unknown>) => steps.add(name, stop);
  let connections: RedisConnections | undefined;
  const stopAll = async () => {
    // from here on a Redis that is away is given up on rather than waited for
    connections?.giveUpWhenAway();
    await steps.run(stopBudget(config.shutdownGraceMs));
  };
  try {
    // one process per data folder while it holds an embedded store (PGlite, or the redis-server's files)
    const lock = !config.databaseUrl || !config.redisUrl ? acquireDataDirLock(config.dataDir, 'start') : undefined;
    if (lock) onStop('data folder lock', async () => lock.release());
    let redisUrl = config.redisUrl;
    if (!redisUrl) {
      const embedded = await startEmbeddedRedis(join(config.dataDir, 'redis'), {
        avoidPorts: [config.port],
        onUnexpectedExit: (code, signal) => logger.error({ code, signal }, 'the embedded redis-server exited; Redis is away until the service is restarted'),
      });
      // stopped last, after the turns have drained and every connection to it is closed
      onStop('embedded redis', (budget) => embedded.stop(Math.max(500, budget.deadline - Date.now())));
      logger.info({ url: embedded.url, pid: embedded.pid }, 'REDIS_URL unset: started redis-server from PATH');
      redisUrl = embedded.url;
    }
    const metrics = new Metrics();
    const database = await openDatabase({
      ...databaseOptionsOf(config),
      onQuery: (statement) => metrics.databaseStatements.inc({ kind: statementKind(statement) }),
    });
    onStop('database', () => database.close());
    await migrateDatabase(database);

    const redisConnections = new RedisConnections({ url: redisUrl, cluster: config.redisCluster });
    connections = redisConnections;
    const connection = (name: string, purpose: ConnectionPurpose): RedisClient => {
      const redis = redisConnections.create(purpose);
      onStop(name, () => redisConnections.close(redis));
      return redis;
    };
    const purpose = config.role === 'worker' ? 'worker' : 'producer';
    const redis = connection('redis', purpose);
    const bullmqRedis = connection('bullmq queues', purpose);
    // BullMQ takes a cluster client in status `connect` (its ready check still running) for ready; a producer
    // connection (no offline queue) would then refuse the first command a queue sends: both are awaited here
    await Promise.all([waitUntilReady(redis), waitUntilReady(bullmqRedis)]);
    const unlessRedisLost = (work: Promise<unknown>, onLost: () => void) => redisConnections.unlessLost(work, onLost);
    return {
      config,
      logger,
      metrics,
      database,
      keys: new KeySpace(config.queuePrefix, config.queueShards, config.redisCluster),
      redis,
      bullmqRedis,
      connection,
      lock,
      activity: new ProcessActivity(),
      onStop,
      onStopWithRedis: (name, stop) => onStop(name, (budget) => unlessRedisLost(stop(budget), () => logger.warn({ step: name }, 'Redis is away: not waiting for this part to stop'))),
      unlessRedisLost,
      stopAll,
    };
  } catch (error) {
    await stopAll().catch((stopError: unknown) => logger.warn({ err: stopError }, 'could not undo the start completely'));
    throw error;
  }
}
