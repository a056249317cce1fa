import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { KeySpace } from '../../src/redis/key-space.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { WorkerBeat } from '../../src/redis/worker-beat.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

const logger = createLogger({ level: 'silent' });
const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const prefixes: string[] = [];
const TTL_MS = 400;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterAll(async () => {
  for (const prefix of prefixes) await deleteTestKeys(redis, `{${prefix}:*`);
  await redis.quit();
});

function space(): KeySpace {
  const prefix = uniqueName('beat');
  prefixes.push(prefix);
  return new KeySpace(prefix, 1, target.cluster);
}

/** A worker that holds one turn and whose beat ran out `agoMs` ago (killed, or silent through an outage). */
async function silentHolder(keys: KeySpace, workerId: string, agoMs = 1): Promise<void> {
  const shard = keys.shard(0);
  await redis.hset(shard.alive, workerId, String(Date.now() - agoMs));
  await redis.sadd(shard.held(workerId), `session-of-${workerId}\x1fturn-1`);
}

async function reaped(keys: KeySpace, workerId: string): Promise<boolean> {
  return (await redis.hexists(keys.shard(0).alive, workerId)) === 0;
}

/** Beats every 100 ms for `ms`, like the interval does. */
async function beatFor(beat: WorkerBeat, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await beat.beat();
    await sleep(100);
  }
}

describe('WorkerBeat', () => {
  it('takes a silent worker’s turns over only once its own beats have been steady for as long as a beat lasts', async () => {
    const keys = space();
    await silentHolder(keys, 'dead');
    const judge = new WorkerBeat(redis, keys, 'judge', logger, { intervalMs: 100, ttlMs: TTL_MS });
    const startedAt = Date.now();
    await judge.beat();
    expect(await reaped(keys, 'dead')).toBe(false);
    while (!(await reaped(keys, 'dead'))) {
      expect(Date.now() - startedAt).toBeLessThan(TTL_MS + 1_000);
      await sleep(100);
      await judge.beat();
    }
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(TTL_MS);
    // its session was scheduled for the acquire that takes the turn back
    expect(await redis.zscore(keys.shard(0).sched, 'session-of-dead')).not.toBeNull();
  });

  it('after a gap in its own beats (Redis away, a stall) judges nobody until the others have had time to beat again', async () => {
    const keys = space();
    const judge = new WorkerBeat(redis, keys, 'judge', logger, { intervalMs: 100, ttlMs: TTL_MS });
    const other = new WorkerBeat(redis, keys, 'other', logger, { intervalMs: 100, ttlMs: TTL_MS });
    await Promise.all([beatFor(judge, TTL_MS + 200), beatFor(other, TTL_MS + 200)]);
    // an outage: nobody beats for longer than a beat lasts, and the other's deadline passes meanwhile
    await sleep(TTL_MS + 200);
    await redis.sadd(keys.shard(0).held('other'), 'session-of-other\x1fturn-1');
    expect(Number(await redis.hget(keys.shard(0).alive, 'other'))).toBeLessThan(Date.now());
    // back: the judge beats first, the other a moment later, then both steadily
    await judge.beat();
    expect(await reaped(keys, 'other')).toBe(false);
    await sleep(150);
    await Promise.all([beatFor(judge, TTL_MS + 300), beatFor(other, TTL_MS + 300)]);
    expect(await reaped(keys, 'other')).toBe(false);
    expect(await redis.smembers(keys.shard(0).held('other'))).toEqual(['session-of-other\x1fturn-1']);
  });

  it('a failed beat starts its steadiness over', async () => {
    const keys = space();
    const connection = createRedisClient(target, 'worker');
    const judge = new WorkerBeat(connection, keys, 'judge', logger, { intervalMs: 100, ttlMs: TTL_MS });
    await beatFor(judge, TTL_MS + 200);
    connection.disconnect();
    await judge.beat(); // fails: the connection is closed
    await connection.connect();
    await silentHolder(keys, 'dead');
    await judge.beat();
    expect(await reaped(keys, 'dead')).toBe(false);
    await beatFor(judge, TTL_MS + 300);
    expect(await reaped(keys, 'dead')).toBe(true);
    connection.disconnect();
  });
});
