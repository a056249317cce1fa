import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { inPlatformOrder, SessionScheduler, type SchedulerOptions } from '../../src/queue/session-scheduler.js';
import type { InboundMessage } from '../../src/core/inbound-message.js';
import { inboundMessage } from '../support/messages.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const redis = new Redis(TEST_REDIS_URL);
let prefix: string;

function scheduler(overrides: Partial<SchedulerOptions> = {}) {
  return new SessionScheduler(redis, { prefix, groupMaxConcurrent: 3, mode: 'collect', leaseMs: 10_000, debounceMs: 0, ...overrides });
}

beforeEach(() => {
  prefix = uniqueName('sched');
});

afterAll(async () => {
  const keys = await redis.keys('sched_*');
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe('SessionScheduler', () => {
  it('registers a message once; a redelivery after the job exists is a duplicate', async () => {
    const s = scheduler();
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    expect(await s.enqueue(key, message)).toBe('new');
    expect(await s.enqueue(key, message)).toBe('registered');
    await s.markQueued(message);
    expect(await s.enqueue(key, message)).toBe('duplicate');
    expect(await s.depth(key)).toEqual({ pending: 1, active: 0 });
  });

  it('runs one DM turn at a time and collects messages that arrived meanwhile into the next turn', async () => {
    const s = scheduler();
    const [first, second, third] = [inboundMessage(), inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await s.enqueue(key, first);
    const turn1 = await s.acquire(key, 'job1');
    expect(turn1.kind).toBe('acquired');
    if (turn1.kind !== 'acquired') return;
    expect(turn1.messages.map((m) => m.text)).toEqual([first.text]);

    await s.enqueue(key, second);
    await s.enqueue(key, third);
    const blocked = await s.acquire(key, 'job2');
    expect(blocked.kind).toBe('busy');
    expect((await s.acquire(key, 'job3')).kind).toBe('busy');

    expect(await s.release(key, turn1.turnId, turn1.holder)).toEqual({ kind: 'wake', jobId: 'job2' });
    const turn2 = await s.acquire(key, 'job2');
    if (turn2.kind !== 'acquired') throw new Error(`expected acquired, got ${turn2.kind}`);
    expect(turn2.messages.map((m) => m.text)).toEqual([second.text, third.text]);
    // job3's message was collected, but while a turn runs it parks as the takeover guardian.
    expect((await s.acquire(key, 'job3')).kind).toBe('busy');
    expect(await s.release(key, turn2.turnId, turn2.holder)).toEqual({ kind: 'idle', parkedJobIds: ['job3'] });
    expect((await s.acquire(key, 'job3')).kind).toBe('empty');
  });

  it('lets a group run up to its limit, then collects the overflow', async () => {
    const s = scheduler();
    const messages = Array.from({ length: 6 }, () => inboundMessage({ chatType: 'group' }));
    const key = sessionKeyOf(messages[0]!);
    for (const message of messages) await s.enqueue(key, message);
    const turns = [];
    for (let index = 0; index < 3; index++) {
      const claim = await s.acquire(key, `job${index}`);
      if (claim.kind !== 'acquired') throw new Error('expected a slot');
      expect(claim.messages).toHaveLength(1);
      turns.push(claim);
    }
    expect((await s.acquire(key, 'job3')).kind).toBe('busy');
    await s.release(key, turns[0]!.turnId, turns[0]!.holder);
    const overflow = await s.acquire(key, 'job3');
    if (overflow.kind !== 'acquired') throw new Error('expected the overflow turn');
    expect(overflow.messages.map((m) => m.text)).toEqual(messages.slice(3).map((m) => m.text));
  });

  it('runs one message per turn in followup mode', async () => {
    const s = scheduler({ mode: 'followup' });
    const [first, second, third] = [inboundMessage(), inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    for (const message of [first, second, third]) await s.enqueue(key, message);
    const texts: string[] = [];
    for (let index = 0; index < 3; index++) {
      const claim = await s.acquire(key, `job${index}`);
      if (claim.kind !== 'acquired') throw new Error('expected a turn');
      texts.push(...claim.messages.map((m) => m.text));
      await s.release(key, claim.turnId, claim.holder);
    }
    expect(texts).toEqual([first.text, second.text, third.text]);
  });

  it('takes back an expired lease with the same turn id and the same messages', async () => {
    const s = scheduler({ leaseMs: 1_000 });
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await s.enqueue(key, message);
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    const parked = await s.acquire(key, 'job2');
    expect(parked.kind).toBe('busy');
    if (parked.kind === 'busy') expect(parked.waitMs).toBeLessThanOrEqual(1_000);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const takeover = await s.acquire(key, 'job2');
    if (takeover.kind !== 'acquired') throw new Error('expected the takeover');
    expect(takeover.turnId).toBe(claim.turnId);
    expect(takeover.messages).toEqual(claim.messages);
    // the same turn under a new holder: the one that stalled can neither renew, requeue nor release it
    expect(takeover.holder).not.toBe(claim.holder);
    expect(await s.renew(key, claim.turnId, claim.holder)).toBe('lost');
    expect(await s.requeue(key, claim.turnId, claim.holder)).toBe('lost');
    expect(await s.release(key, claim.turnId, claim.holder)).toEqual({ kind: 'lost' });
    expect(await s.renew(key, takeover.turnId, takeover.holder)).toBe('ok');
    expect(await s.depth(key)).toEqual({ pending: 0, active: 1 });
  });

  it('keeps a lease alive while it is renewed and reports it lost once taken back', async () => {
    const s = scheduler({ leaseMs: 1_000 });
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await s.enqueue(key, message);
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    for (let index = 0; index < 4; index++) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await s.renew(key, claim.turnId, claim.holder)).toBe('ok');
    }
    expect((await s.acquire(key, 'job2')).kind).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await s.enqueue(key, inboundMessage());
    expect(await s.renew(key, claim.turnId, claim.holder)).toBe('lost');
  });

  it('requeues a failed turn at the head with its id', async () => {
    const s = scheduler();
    const [first, second] = [inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await s.enqueue(key, first);
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    await s.enqueue(key, second);
    expect(await s.requeue(key, claim.turnId, claim.holder)).toBe('requeued');
    const again = await s.acquire(key, 'job1');
    if (again.kind !== 'acquired') throw new Error('expected the retry');
    expect(again.turnId).toBe(claim.turnId);
    expect(again.messages.map((m) => m.text)).toEqual([first.text]);
  });

  it('a parked turn keeps its slot without a holder until unparked; then it resumes with its id; stop reports it as waiting', async () => {
    const s = scheduler();
    const [first, second] = [inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await s.enqueue(key, first);
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    expect(await s.park(key, claim.turnId, claim.holder, Date.now() + 60_000)).toBe('parked');
    // the worker that parked it holds nothing any more; the session stays busy in order
    expect(await s.renew(key, claim.turnId, claim.holder)).toBe('lost');
    await s.enqueue(key, second);
    expect(await s.acquire(key, 'job2')).toMatchObject({ kind: 'busy' });
    expect((await s.stop(key)).waitingTurnIds).toEqual([claim.turnId]);

    await s.enqueue(key, second);
    expect(await s.unpark(key, claim.turnId)).toBe('unparked');
    const resumed = await s.acquire(key, 'job3');
    expect(resumed).toMatchObject({ kind: 'acquired', turnId: claim.turnId, resumed: true, messages: [first] });
  });

  it('an answer that comes before the worker parks the turn is not lost: park hands the turn straight back', async () => {
    const s = scheduler();
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await s.enqueue(key, message);
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    expect(await s.unpark(key, claim.turnId)).toBe('not-parked');
    expect(await s.park(key, claim.turnId, claim.holder, Date.now() + 60_000)).toBe('resume');
    expect(await s.acquire(key, 'job2')).toMatchObject({ kind: 'acquired', turnId: claim.turnId, resumed: true });
  });

  it('stop marks running turns aborted and drops what waits', async () => {
    const s = scheduler();
    const [first, second, third] = [inboundMessage(), inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await s.enqueue(key, first);
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    await s.enqueue(key, second);
    await s.enqueue(key, third);
    await s.acquire(key, 'job2');
    const stopped = await s.stop(key);
    expect(stopped).toEqual({ droppedMessages: 2, abortedTurnIds: [claim.turnId], waitingTurnIds: [], parkedJobIds: ['job2'] });
    expect(await s.renew(key, claim.turnId, claim.holder)).toBe('aborted');
    expect(await s.requeue(key, claim.turnId, claim.holder)).toBe('dropped');
    expect(await s.depth(key)).toEqual({ pending: 0, active: 0 });
  });

  it('debounces rapid-fire messages into one turn', async () => {
    const s = scheduler({ debounceMs: 300 });
    const [first, second] = [inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await s.enqueue(key, first);
    await s.enqueue(key, second);
    const early = await s.acquire(key, 'job1');
    expect(early.kind).toBe('debounce');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    expect(claim.messages.map((m) => m.text)).toEqual([first.text, second.text]);
  });

  it('holds an album until its newest part has waited, then answers all its parts as one turn (other messages after)', async () => {
    const s = scheduler({ albumWaitMs: 300 });
    const album = [1, 2, 3].map(() => inboundMessage({ mediaGroupId: 'telegram:1:42:album-7' }));
    const after = inboundMessage();
    const key = sessionKeyOf(album[0]!);
    await s.enqueue(key, album[0]!);
    await s.enqueue(key, album[1]!);
    const early = await s.acquire(key, 'job1');
    expect(early.kind).toBe('debounce');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // a late part restarts the wait
    await s.enqueue(key, album[2]!);
    await s.enqueue(key, after);
    const stillWaiting = await s.acquire(key, 'job1');
    expect(stillWaiting.kind).toBe('debounce');
    if (stillWaiting.kind === 'debounce') expect(stillWaiting.waitMs).toBeGreaterThan(200);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const claim = await s.acquire(key, 'job1');
    if (claim.kind !== 'acquired') throw new Error('expected a turn');
    expect(claim.messages.map((m) => m.dedupeKey)).toEqual(album.map((m) => m.dedupeKey));
    await s.release(key, claim.turnId, claim.holder);
    const next = await s.acquire(key, 'job2');
    if (next.kind !== 'acquired') throw new Error('expected the message after the album');
    expect(next.messages.map((m) => m.dedupeKey)).toEqual([after.dedupeKey]);
  });
});

describe('inPlatformOrder', () => {
  const message = (text: string, platformOrder?: number): InboundMessage => ({ ...inboundMessage(), text, ...(platformOrder === undefined ? {} : { platformOrder }) });
  it('orders messages answered together by the platform’s order, not by arrival', () => {
    expect(inPlatformOrder([message('second', 11), message('first', 10), message('third', 12)]).map((entry) => entry.text)).toEqual(['first', 'second', 'third']);
  });
  it('keeps arrival order when a message has no platform order', () => {
    expect(inPlatformOrder([message('b', 11), message('a')]).map((entry) => entry.text)).toEqual(['b', 'a']);
  });
});
