import { afterEach } from 'vitest';
import type { TurnFailingNotifier, TurnOutcome, TurnRequest } from '../../../src/core/turn-contract.js';
import { createLogger } from '../../../src/observability/logger.js';
import { AbortBus } from '../../../src/queue/abort-bus.js';
import { QueueWorker, type ReleaseObserver, type TurnAbandoner } from '../../../src/queue/queue-worker.js';
import { KeySpace } from '../../../src/redis/key-space.js';
import { createRedisClient, type RedisClient } from '../../../src/redis/redis-client.js';
import { SessionQueue } from '../../../src/redis/session-queue.js';
import { WorkerRoster, type SessionPlacement } from '../../../src/redis/worker-roster.js';
import { WorkerBeat } from '../../../src/redis/worker-beat.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../../support/services.js';

/**
 * Queue workers on the test Redis: `deployment()` is a gateway's session queue and a factory of workers beside it
 * (each with its own beat, 1 s deadline), all cleaned up after each test.
 */
export function queueDeployments() {
  const logger = createLogger({ level: 'silent' });
  const target = testRedisTarget();
  const cleanups: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  interface HarnessOptions {
    attempts?: number;
    /** The wait after a round's first failed attempt, doubling (TURN_RETRY_FIRST_DELAY_MS; the service's 2 s unless told). */
    firstDelayMs?: number;
    lateRounds?: number;
    lateRoundDelayMs?: number;
    abandonTurn?: TurnAbandoner;
    notifyFailing?: TurnFailingNotifier;
    failingNoticeMs?: number;
    leaseMs?: number;
    concurrency?: number;
    releases?: ReleaseObserver;
    /** Changes the worker's own session queue before the worker gets it (a test holding a call back, say). */
    adjustQueue?: (queue: SessionQueue) => void;
  }

  /**
   * `placement`: which worker the gateway's queue sends each session to first ('roster': the service's own, over
   * the workers beating, read every 100 ms); `placementGraceMs`: how long that worker has before any may take it.
   */
  function deployment(options: { placement?: SessionPlacement | 'roster'; placementGraceMs?: number } = {}) {
    const prefix = uniqueName('qw');
    const redis = createRedisClient(target, 'worker');
    const keys = new KeySpace(prefix, 2, target.cluster);
    const roster = options.placement === 'roster' ? new WorkerRoster(redis, keys, 100) : undefined;
    const placement = roster ?? (options.placement === 'roster' ? undefined : options.placement);
    const queue = new SessionQueue(redis, keys, {
      groupMaxConcurrent: 3,
      leaseMs: 30_000,
      debounceMs: 0,
      albumWaitMs: 0,
      modeOf: () => 'collect',
      ...(placement ? { placement } : {}),
      ...(options.placementGraceMs === undefined ? {} : { placementGraceMs: options.placementGraceMs }),
    });
    if (roster) {
      void roster.start();
      cleanups.push(async () => roster.stop());
    }
    const connections: RedisClient[] = [redis];
    cleanups.push(async () => {
      await deleteTestKeys(redis, `{${prefix}:*`);
      for (const connection of connections) connection.disconnect();
    });

    function worker(runTurn: (request: TurnRequest) => Promise<TurnOutcome>, options: HarnessOptions = {}) {
      const workerId = uniqueName('w');
      const { adjustQueue, ...workerOptions } = options;
      const workerQueue = new SessionQueue(redis, keys, { ...queue.options, leaseMs: options.leaseMs ?? 30_000 });
      adjustQueue?.(workerQueue);
      const abortBus = new AbortBus(keys.abortChannel, redis, undefined, logger);
      const beat = new WorkerBeat(redis, keys, workerId, logger, { intervalMs: 200, ttlMs: 1_000 });
      const instance = new QueueWorker({
        queue: workerQueue,
        blockingConnection: () => {
          const connection = createRedisClient(target, 'blocking');
          connections.push(connection);
          return connection;
        },
        workerId,
        concurrency: options.concurrency ?? 8,
        abortBus,
        runTurn,
        logger,
        ...workerOptions,
      });
      let closed = false;
      const start = async () => {
        await beat.start();
        instance.start();
      };
      const close = async () => {
        if (closed) return;
        closed = true;
        await instance.close(1_000);
        await beat.stop(true);
      };
      /** Like a SIGKILL as the others see it: it stops beating and never releases what it holds. */
      const die = async () => {
        closed = true;
        await beat.stop(false);
        void instance.close(60_000);
      };
      cleanups.push(close);
      return { start, close, die, workerId };
    }
    return { queue, worker, redis, roster };
  }

  return deployment;
}
