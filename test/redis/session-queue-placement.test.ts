import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { createLogger } from '../../src/observability/logger.js';
import { Invalidations } from '../../src/redis/invalidations.js';
import { KeySpace } from '../../src/redis/key-space.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { announceWorkerChange, rendezvousWorker, WorkerRoster, type SessionPlacement } from '../../src/redis/worker-roster.js';
import { waitFor } from '../support/service-process.js';
import { inboundMessage } from '../support/messages.js';
import { testRedisTarget, uniqueName } from '../support/services.js';
import { sessionQueueHarness, wrote } from './support/session-queue-harness.js';

const { redis, queue, beat, acquired, due, waitsFor } = sessionQueueHarness();
const [A, B] = ['worker-a', 'worker-b'];
/** Every session goes to `worker` first. */
const placedOn = (worker: string | undefined): SessionPlacement => ({ workerFor: () => worker });

describe('SessionQueue: a session goes to its own worker first', () => {
  it('waits for the worker its placement names; any worker takes it once the grace is over', async () => {
    const gateway = queue({ placement: placedOn(A), placementGraceMs: 300 });
    await beat(gateway, A);
    await beat(gateway, B);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    const shard = gateway.keys.shardOf(key);
    await gateway.enqueue(key, message);
    expect(await waitsFor(gateway, key, A)).toBe(true);
    expect(await due(gateway, key)).toBe(false);
    // the console and metrics count it as due, not as scheduled for later
    expect(await gateway.load()).toEqual({ running: 0, due: 1, scheduled: 0 });
    // no marker for the other workers: nothing woke them for it
    expect(await redis.zscore(gateway.keys.shard(shard).wake, '0')).toBeNull();
    expect((await gateway.popDue(shard, 10, B)).sessionKeys).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 350));
    // A did not take it in time: it is any worker's now, and A's own entry costs A one look
    expect((await gateway.popDue(shard, 10, B)).sessionKeys).toEqual([key]);
    expect((await acquired(gateway, key, B)).messages).toHaveLength(1);
    expect((await gateway.popDue(shard, 10, A)).sessionKeys).toEqual([key]);
    expect((await gateway.acquire(key, A)).kind).toBe('busy');
  });

  it('goes to any worker at once when its worker does not beat, or none is known', async () => {
    for (const placement of [placedOn(A), placedOn(undefined)]) {
      const gateway = queue({ placement, placementGraceMs: 60_000 });
      await beat(gateway, B);
      const message = inboundMessage();
      const key = sessionKeyOf(message);
      await gateway.enqueue(key, message);
      expect(await waitsFor(gateway, key, A)).toBe(false);
      expect(await due(gateway, key)).toBe(true);
      expect(await redis.zscore(gateway.keys.shard(gateway.keys.shardOf(key)).wake, '0')).not.toBeNull();
    }
  });

  it('lets the enqueuing process’s worker claim an idle session only when the session is placed on it', async () => {
    const gateway = queue({ placement: placedOn(A), placementGraceMs: 60_000 });
    await beat(gateway, A);
    await beat(gateway, B);
    const first = inboundMessage({ sender: { id: 'u1' } });
    expect((await gateway.enqueue(sessionKeyOf(first), first, Date.now(), A)).kind).toBe('claimed');
    const elsewhere = queue({ placement: placedOn(A), placementGraceMs: 60_000 });
    const second = inboundMessage({ sender: { id: 'u2' } });
    const key = sessionKeyOf(second);
    // B's process received it, but the session is A's: queued for A instead of claimed by B
    expect(await elsewhere.enqueue(key, second, Date.now(), B)).toEqual({ kind: 'queued', running: 0 });
    expect(await waitsFor(elsewhere, key, A)).toBe(true);
  });

  it('hands a released session with messages waiting to the releasing worker, popped once', async () => {
    const q = queue({ placementGraceMs: 60_000 });
    await beat(q, A);
    const [first, second] = [inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await q.enqueue(key, first);
    const claim = await acquired(q, key, A);
    await q.enqueue(key, second);
    await q.release(key, claim.turnId, claim.holder, wrote(claim));
    expect(await waitsFor(q, key, A)).toBe(true);
    const shard = q.keys.shardOf(key);
    expect((await q.popDue(shard, 10, B)).sessionKeys).toEqual([]);
    expect((await q.popDue(shard, 10, A)).sessionKeys).toEqual([key]);
    expect(await waitsFor(q, key, A)).toBe(false);
    expect((await acquired(q, key, A)).messages.map((message) => message.text)).toEqual([second.text]);
  });

  it('hands the sessions waiting for a worker that stops to any worker', async () => {
    const q = queue({ placement: placedOn(A), placementGraceMs: 60_000 });
    await beat(q, A);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await q.enqueue(key, message);
    expect(await due(q, key)).toBe(false);
    expect(await q.handBackPreferred(A)).toBe(1);
    expect(await waitsFor(q, key, A)).toBe(false);
    expect(await due(q, key)).toBe(true);
    expect(await redis.zscore(q.keys.shard(q.keys.shardOf(key)).wake, '0')).not.toBeNull();
    expect((await acquired(q, key, B)).messages).toHaveLength(1);
  });
});

describe('WorkerRoster', () => {
  it('names, for each session, the same worker among those beating, and moves only the sessions of one that stops', async () => {
    const keys = new KeySpace(uniqueName('roster'), 4, false);
    const workers = ['w-1', 'w-2', 'w-3'];
    const alive = keys.shard(0).alive;
    for (const worker of workers) await redis.hset(alive, worker, String(Date.now() + 60_000));
    await redis.hset(alive, 'w-gone', String(Date.now() - 1));
    const roster = new WorkerRoster(redis, keys);
    const other = new WorkerRoster(redis, keys);
    await roster.refresh();
    await other.refresh();
    expect(roster.workers).toEqual(workers);
    const sessions = Array.from({ length: 3_000 }, (_, index) => `telegram:main:dm:${index}`);
    const placed = sessions.map((session) => roster.workerFor(session));
    // every process that reads the same registry names the same worker
    expect(sessions.map((session) => other.workerFor(session))).toEqual(placed);
    for (const worker of workers) {
      const share = placed.filter((name) => name === worker).length / sessions.length;
      expect(share).toBeGreaterThan(0.28);
      expect(share).toBeLessThan(0.39);
    }
    await redis.hdel(alive, 'w-2');
    await roster.refresh();
    sessions.forEach((session, index) => {
      if (placed[index] !== 'w-2') expect(roster.workerFor(session)).toBe(placed[index]);
      else expect(['w-1', 'w-3']).toContain(roster.workerFor(session));
    });
    await redis.del(alive);
    await roster.refresh();
    expect(roster.workerFor(sessions[0]!)).toBeUndefined();
    expect(rendezvousWorker('s', ['only'])).toBe('only');
  });

  it('reads the registry again when a worker says it started, long before its next second', async () => {
    const keys = new KeySpace(uniqueName('roster'), 4, false);
    const subscriber = createRedisClient(testRedisTarget(), 'subscriber');
    try {
      const invalidations = new Invalidations(`${keys.prefix}:invalidate`, redis, createLogger({ level: 'silent' }));
      await invalidations.listen(subscriber);
      const roster = new WorkerRoster(redis, keys, 60_000);
      await roster.start();
      roster.followChanges(invalidations);
      expect(roster.workers).toEqual([]);
      await redis.hset(keys.shard(0).alive, 'w-new', String(Date.now() + 60_000));
      await announceWorkerChange(invalidations);
      await waitFor(() => (roster.workers.length === 1 ? true : undefined), { timeoutMs: 2_000, what: 'the roster to see the new worker' });
      expect(roster.workerFor('any session')).toBe('w-new');
      roster.stop();
    } finally {
      subscriber.disconnect();
      await redis.del(keys.shard(0).alive);
    }
  });
});
