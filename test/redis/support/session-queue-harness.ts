import { afterAll, beforeEach } from 'vitest';
import { sessionKeyOf } from '../../../src/core/session-key.js';
import { KeySpace } from '../../../src/redis/key-space.js';
import { createRedisClient } from '../../../src/redis/redis-client.js';
import { newHistoryVersion, SessionQueue, type QueueMode, type SessionQueueOptions } from '../../../src/redis/session-queue.js';
import { inboundMessage } from '../../support/messages.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../../support/services.js';

/**
 * The session queue on the test Redis, a prefix of its own per test (deleted after the file), and the worker's side
 * of it: beat, acquire, and what a worker passes when its turn stored its history.
 */
export function sessionQueueHarness() {
  const target = testRedisTarget();
  const redis = createRedisClient(target, 'worker');
  const prefixes: string[] = [];
  let prefix = '';
  const WORKER = 'worker-a';

  beforeEach(() => {
    prefix = uniqueName('sq');
    prefixes.push(prefix);
  });

  afterAll(async () => {
    for (const used of prefixes) await deleteTestKeys(redis, `{${used}:*`);
    await redis.quit();
  });

  function queue(overrides: Partial<Omit<SessionQueueOptions, 'modeOf'>> & { mode?: QueueMode } = {}) {
    const { mode = 'collect', ...options } = overrides;
    return new SessionQueue(redis, new KeySpace(prefix, 4, target.cluster), {
      groupMaxConcurrent: 3,
      leaseMs: 10_000,
      debounceMs: 0,
      albumWaitMs: 0,
      modeOf: () => mode,
      ...options,
    });
  }

  /** Beat so that this worker counts as alive. */
  async function beat(q: SessionQueue, worker = WORKER, ttlMs = 60_000) {
    for (const shard of q.keys.shards()) await redis.hset(shard.alive, worker, String(Date.now() + ttlMs));
  }

  async function acquired(q: SessionQueue, key: string, worker = WORKER) {
    const claim = await q.acquire(key, worker);
    if (claim.kind !== 'acquired') throw new Error(`expected a turn, got ${claim.kind}`);
    return claim;
  }

  /** A DM message enqueued and its turn acquired by this worker. */
  async function heldTurn(q: SessionQueue, message = inboundMessage()) {
    const key = sessionKeyOf(message);
    await q.enqueue(key, message);
    return { message, key, claim: await acquired(q, key) };
  }

  async function due(q: SessionQueue, key: string): Promise<boolean> {
    const shard = q.keys.shardOf(key);
    const score = await redis.zscore(q.keys.shard(shard).sched, key);
    return score !== null && Number(score) <= Date.now();
  }

  /** The session waits for `worker` as the one that ran it last (its preferred set). */
  async function waitsFor(q: SessionQueue, key: string, worker: string): Promise<boolean> {
    return (await redis.zscore(q.keys.shard(q.keys.shardOf(key)).preferred(worker), key)) !== null;
  }

  return { redis, WORKER, queue, beat, acquired, heldTurn, due, waitsFor, wrote };
}

/** What a worker passes when its turn stored its history: the version it started from and the one it writes. */
export function wrote(claim: { historyVersion: string }) {
  return { base: claim.historyVersion, next: newHistoryVersion() };
}
