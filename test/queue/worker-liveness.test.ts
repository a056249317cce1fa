import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { createLogger } from '../../src/observability/logger.js';
import { SessionScheduler } from '../../src/queue/session-scheduler.js';
import { WorkerLiveness } from '../../src/queue/worker-liveness.js';
import { inboundMessage } from '../support/messages.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const redis = new Redis(TEST_REDIS_URL);
const logger = createLogger({ level: 'silent' });
let prefix: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function liveness(onDead: (ids: string[]) => void = () => {}, deadAfterMs = 800) {
  return new WorkerLiveness(redis, { prefix, deadAfterMs, onDead: async (ids) => onDead(ids), logger });
}

/** Beats every `intervalMs` for `ms`, as the process's timer would. */
async function beatFor(worker: WorkerLiveness, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await worker.beat();
    await sleep(worker.intervalMs);
  }
}

beforeEach(() => {
  prefix = uniqueName('alive');
});

afterAll(async () => {
  const keys = await redis.keys('*alive_*');
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe('WorkerLiveness', () => {
  it('a worker that stops beating is declared dead once, by one judge, after deadAfterMs', async () => {
    const seen: string[][] = [];
    const judge = liveness((ids) => seen.push(ids));
    const otherJudge = liveness((ids) => seen.push(ids));
    const victim = liveness();
    await victim.beat(); // then killed: no more beats
    await Promise.all([beatFor(judge, 1_400), beatFor(otherJudge, 1_400)]);
    expect(seen).toEqual([[victim.workerId]]);
    // the judges themselves are alive and stay so
    await Promise.all([beatFor(judge, 600), beatFor(otherJudge, 600)]);
    expect(seen).toHaveLength(1);
  });

  it('judges nobody until its own beats have been steady for deadAfterMs (after a Redis outage everyone beats again first)', async () => {
    const seen: string[][] = [];
    const judge = liveness((ids) => seen.push(ids));
    const quiet = liveness();
    await quiet.beat();
    await judge.beat();
    // the judge's own heartbeat stalls (an outage, a blocked event loop): its steady period starts over
    await sleep(1_000);
    await judge.beat();
    expect(seen).toEqual([]);
    await beatFor(judge, 1_000);
    expect(seen).toEqual([[quiet.workerId]]);
  });

  it('a clean stop leaves the registry: nobody takes over a worker that handed its turns back', async () => {
    const seen: string[][] = [];
    const judge = liveness((ids) => seen.push(ids));
    const leaving = liveness();
    await leaving.beat();
    await leaving.stop();
    await beatFor(judge, 1_300);
    expect(seen).toEqual([]);
  });
});

describe('SessionScheduler.expireLeasesOf', () => {
  it("expires only the dead worker's leases: the next acquire resumes its turn under the same id", async () => {
    const options = { prefix, groupMaxConcurrent: 3, mode: 'collect' as const, leaseMs: 60_000, debounceMs: 0 };
    const dead = new SessionScheduler(redis, { ...options, workerId: 'deadbeef' });
    const alive = new SessionScheduler(redis, { ...options, workerId: 'alive001' });
    const lost = inboundMessage();
    const kept = inboundMessage({ conversation: { channel: 'telegram', accountId: '1', chatId: '43', chatType: 'dm', messageId: '7' }, sender: { id: '43', name: 'Bo' } });
    const lostKey = sessionKeyOf(lost);
    const keptKey = sessionKeyOf(kept);
    await dead.enqueue(lostKey, lost);
    await alive.enqueue(keptKey, kept);
    const turn = await dead.acquire(lostKey, 'job1');
    const other = await alive.acquire(keptKey, 'job2');
    if (turn.kind !== 'acquired' || other.kind !== 'acquired') throw new Error('expected both turns to start');
    expect(turn.holder.startsWith('deadbeef/')).toBe(true);

    expect(await alive.expireLeasesOf(lostKey, ['deadbeef'])).toBe(1);
    expect(await alive.expireLeasesOf(keptKey, ['deadbeef'])).toBe(0);
    const resumed = await alive.acquire(lostKey, 'job3');
    expect(resumed).toMatchObject({ kind: 'acquired', turnId: turn.turnId, resumed: true });
    // the dead holder can no longer renew (or write anything fenced by its token)
    expect(await dead.renew(lostKey, turn.turnId, turn.holder)).toBe('lost');
    expect(await alive.renew(keptKey, other.turnId, other.holder)).toBe('ok');
  });
});
