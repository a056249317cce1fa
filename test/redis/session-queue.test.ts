import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { KeySpace } from '../../src/redis/key-space.js';
import { inPlatformOrder, newHistoryVersion, SessionQueue, type QueueMode, type SessionQueueOptions } from '../../src/redis/session-queue.js';
import type { InboundMessage } from '../../src/core/inbound-message.js';
import { inboundMessage } from '../support/messages.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const prefixes: string[] = [];
let prefix: string;
const WORKER = 'worker-a';

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

/** The worker side: beat so that this worker counts as alive, then acquire. */
async function beat(q: SessionQueue, worker = WORKER, ttlMs = 60_000) {
  for (const shard of q.keys.shards()) await redis.hset(shard.alive, worker, String(Date.now() + ttlMs));
}

async function acquired(q: SessionQueue, key: string, worker = WORKER) {
  const claim = await q.acquire(key, worker);
  if (claim.kind !== 'acquired') throw new Error(`expected a turn, got ${claim.kind}`);
  return claim;
}

/** What a worker passes when its turn stored its history: the version it started from and the one it writes. */
function wrote(claim: { historyVersion: string }) {
  return { base: claim.historyVersion, next: newHistoryVersion() };
}

async function due(q: SessionQueue, key: string): Promise<boolean> {
  const shard = q.keys.shardOf(key);
  const score = await redis.zscore(q.keys.shard(shard).sched, key);
  return score !== null && Number(score) <= Date.now();
}

beforeEach(() => {
  prefix = uniqueName('sq');
  prefixes.push(prefix);
});

afterAll(async () => {
  for (const used of prefixes) await deleteTestKeys(redis, `{${used}:*`);
  await redis.quit();
});

describe('SessionQueue', () => {
  it('registers a message once; a redelivery is a duplicate', async () => {
    const q = queue();
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    expect(await q.enqueue(key, message)).toEqual({ kind: 'queued', running: 0 });
    expect(await q.enqueue(key, message)).toEqual({ kind: 'duplicate' });
    expect(await q.depth(key)).toEqual({ pending: 1, active: 0 });
    // a command or chatter with the same key is a duplicate too: one seen key per message
    expect(await q.claimSeen(key, message.dedupeKey, 'command')).toBe(false);
  });

  it('schedules a session with a free slot at once, and a worker takes it from the shard', async () => {
    const q = queue();
    await beat(q);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await q.enqueue(key, message);
    const shard = q.keys.shardOf(key);
    const popped = await q.popDue(shard, 10, 5_000);
    expect(popped.sessionKeys).toEqual([key]);
    // still scheduled, later: a worker that dies before it acquires loses nothing
    expect(await due(q, key)).toBe(false);
    expect((await q.popDue(shard, 10, 5_000)).sessionKeys).toEqual([]);
    const claim = await acquired(q, key);
    expect(claim).toMatchObject({ resumed: false, attempt: 1, historyVersion: '' });
    const history = wrote(claim);
    // nobody wrote since the turn began: the release writes the worker's version, the one its cache holds
    expect(await q.release(key, claim.turnId, claim.holder, history)).toEqual({ kind: 'released', historyVersion: history.next });
    // nothing left: the session leaves the schedule
    expect(await redis.zscore(q.keys.shard(shard).sched, key)).toBeNull();
  });

  it('runs one DM turn at a time and collects messages that arrived meanwhile into the next turn', async () => {
    const q = queue();
    await beat(q);
    const [first, second, third] = [inboundMessage(), inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await q.enqueue(key, first);
    const turn1 = await acquired(q, key);
    expect(turn1.messages.map((m) => m.text)).toEqual([first.text]);

    expect(await q.enqueue(key, second)).toEqual({ kind: 'queued', running: 1 });
    await q.enqueue(key, third);
    expect((await q.acquire(key, WORKER)).kind).toBe('busy');
    expect(await due(q, key)).toBe(false);

    await q.release(key, turn1.turnId, turn1.holder, wrote(turn1));
    expect(await due(q, key)).toBe(true);
    const turn2 = await acquired(q, key);
    expect(turn2.messages.map((m) => m.text)).toEqual([second.text, third.text]);
    // the first turn's release moved the history on: a cache of another version is stale
    expect(turn2.historyVersion).not.toBe('');
    const history = wrote(turn2);
    expect(await q.release(key, turn2.turnId, turn2.holder, history)).toEqual({ kind: 'released', historyVersion: history.next });
    expect((await q.acquire(key, WORKER)).kind).toBe('empty');
  });

  it('lets a group run up to its limit, then collects the overflow', async () => {
    const q = queue();
    await beat(q);
    const messages = Array.from({ length: 6 }, () => inboundMessage({ chatType: 'group' }));
    const key = sessionKeyOf(messages[0]!);
    for (const message of messages) await q.enqueue(key, message);
    const turns = [];
    for (let index = 0; index < 3; index++) {
      const claim = await acquired(q, key);
      expect(claim.messages).toHaveLength(1);
      turns.push(claim);
    }
    expect((await q.acquire(key, WORKER)).kind).toBe('busy');
    await q.release(key, turns[0]!.turnId, turns[0]!.holder, wrote(turns[0]!));
    const overflow = await acquired(q, key);
    expect(overflow.messages.map((m) => m.text)).toEqual(messages.slice(3).map((m) => m.text));
  });

  it('writes a turn’s next history version only when nobody wrote since the turn began', async () => {
    const q = queue();
    await beat(q);
    const messages = Array.from({ length: 3 }, () => inboundMessage({ chatType: 'group' }));
    const key = sessionKeyOf(messages[0]!);
    for (const message of messages.slice(0, 2)) await q.enqueue(key, message);
    const [a, b] = [await acquired(q, key), await acquired(q, key)];
    expect(a.historyVersion).toBe(b.historyVersion);
    const first = wrote(a);
    expect(await q.release(key, a.turnId, a.holder, first)).toEqual({ kind: 'released', historyVersion: first.next });
    // the other turn began from the version before the first one's: its own next version would name a history
    // without the first turn's messages, so the session moves to one that no cache holds
    const second = wrote(b);
    const afterSecond = await q.release(key, b.turnId, b.holder, second);
    if (afterSecond.kind !== 'released') throw new Error('expected a release');
    expect([first.next, second.next, b.historyVersion]).not.toContain(afterSecond.historyVersion);
    expect(await redis.hget(q.keys.session(key).meta, 'hv')).toBe(afterSecond.historyVersion);
    // a /new while a turn runs moves the version too
    await q.enqueue(key, messages[2]!);
    const c = await acquired(q, key);
    expect(c.historyVersion).toBe(afterSecond.historyVersion);
    await q.historyChanged(key);
    const third = wrote(c);
    const afterThird = await q.release(key, c.turnId, c.holder, third);
    expect(afterThird.kind === 'released' && afterThird.historyVersion !== third.next).toBe(true);
    // a turn that stored nothing leaves the version as it is
    await q.enqueue(key, inboundMessage({ chatType: 'group' }));
    const d = await acquired(q, key);
    expect(await q.release(key, d.turnId, d.holder)).toEqual({ kind: 'released', historyVersion: d.historyVersion });
  });

  it('runs one message per turn in followup mode', async () => {
    const q = queue({ mode: 'followup' });
    await beat(q);
    const messages = [inboundMessage(), inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(messages[0]!);
    for (const message of messages) await q.enqueue(key, message);
    const texts: string[] = [];
    for (let index = 0; index < 3; index++) {
      const claim = await acquired(q, key);
      texts.push(...claim.messages.map((m) => m.text));
      await q.release(key, claim.turnId, claim.holder, wrote(claim));
    }
    expect(texts).toEqual(messages.map((m) => m.text));
  });

  it('takes back an expired lease with the same turn id and the same messages, as a further attempt', async () => {
    const q = queue({ leaseMs: 1_000 });
    await beat(q);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await q.enqueue(key, message);
    const claim = await acquired(q, key);
    expect((await q.acquire(key, WORKER)).kind).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await due(q, key)).toBe(true);
    const takeover = await acquired(q, key);
    expect(takeover).toMatchObject({ turnId: claim.turnId, messages: claim.messages, resumed: true, attempt: 2 });
    expect(takeover.holder).not.toBe(claim.holder);
    // the holder that stalled can neither renew, requeue nor release it
    expect(await q.renew(key, claim.turnId, claim.holder)).toBe('lost');
    expect(await q.requeue(key, claim.turnId, claim.holder, { delayMs: 0, attempt: 2, round: 0 })).toBe('lost');
    expect(await q.release(key, claim.turnId, claim.holder, wrote(claim))).toEqual({ kind: 'lost' });
    expect(await q.renew(key, takeover.turnId, takeover.holder)).toBe('ok');
    expect(await q.depth(key)).toEqual({ pending: 0, active: 1 });
  });

  it('takes a dead worker’s turn back as soon as the worker stops beating, without waiting out the lease', async () => {
    const q = queue({ leaseMs: 60_000 });
    await beat(q, 'doomed', 300);
    await beat(q, WORKER);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await q.enqueue(key, message);
    const claim = await acquired(q, key, 'doomed');
    expect((await q.acquire(key, WORKER)).kind).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const takeover = await acquired(q, key, WORKER);
    expect(takeover).toMatchObject({ turnId: claim.turnId, resumed: true });
  });

  it('keeps a lease alive while it is renewed and reports it lost once taken back', async () => {
    const q = queue({ leaseMs: 1_000 });
    await beat(q);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await q.enqueue(key, message);
    const claim = await acquired(q, key);
    for (let index = 0; index < 4; index++) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await q.renew(key, claim.turnId, claim.holder)).toBe('ok');
    }
    expect((await q.acquire(key, WORKER)).kind).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await acquired(q, key);
    expect(await q.renew(key, claim.turnId, claim.holder)).toBe('lost');
  });

  it('requeues a failed turn at the head with its id, and holds it until its backoff passed', async () => {
    const q = queue();
    await beat(q);
    const [first, second] = [inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await q.enqueue(key, first);
    const claim = await acquired(q, key);
    await q.enqueue(key, second);
    expect(await q.requeue(key, claim.turnId, claim.holder, { delayMs: 300, attempt: 2, round: 0 })).toBe('requeued');
    expect(await due(q, key)).toBe(false);
    expect((await q.acquire(key, WORKER)).kind).toBe('waiting');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const again = await acquired(q, key);
    expect(again).toMatchObject({ turnId: claim.turnId, resumed: true, attempt: 2 });
    expect(again.messages.map((m) => m.text)).toEqual([first.text]);
    await q.release(key, again.turnId, again.holder, wrote(again));
    const next = await acquired(q, key);
    expect(next.messages.map((m) => m.text)).toEqual([second.text]);
  });

  it('a parked turn keeps its slot without a holder until unparked; then it resumes with its id; stop reports it as waiting', async () => {
    const q = queue();
    await beat(q);
    const [first, second] = [inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await q.enqueue(key, first);
    const claim = await acquired(q, key);
    expect(await q.park(key, claim.turnId, claim.holder, Date.now() + 60_000)).toBe('parked');
    expect(await q.renew(key, claim.turnId, claim.holder)).toBe('lost');
    await q.enqueue(key, second);
    expect((await q.acquire(key, WORKER)).kind).toBe('busy');
    expect((await q.stop(key)).waitingTurnIds).toEqual([claim.turnId]);

    await q.enqueue(key, inboundMessage());
    expect(await q.unpark(key, claim.turnId)).toBe('unparked');
    expect(await due(q, key)).toBe(true);
    expect(await acquired(q, key)).toMatchObject({ turnId: claim.turnId, resumed: true, messages: [first] });
  });

  it('an answer that comes before the worker parks the turn is not lost: park hands the turn straight back', async () => {
    const q = queue();
    await beat(q);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await q.enqueue(key, message);
    const claim = await acquired(q, key);
    expect(await q.unpark(key, claim.turnId)).toBe('not-parked');
    expect(await q.park(key, claim.turnId, claim.holder, Date.now() + 60_000)).toBe('resume');
    expect(await acquired(q, key)).toMatchObject({ turnId: claim.turnId, resumed: true });
  });

  it('stop marks running turns aborted and drops what waits', async () => {
    const q = queue();
    await beat(q);
    const [first, second, third] = [inboundMessage(), inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await q.enqueue(key, first);
    const claim = await acquired(q, key);
    await q.enqueue(key, second);
    await q.enqueue(key, third);
    expect(await q.stop(key)).toEqual({ droppedMessages: 2, abortedTurnIds: [claim.turnId], waitingTurnIds: [] });
    expect(await q.renew(key, claim.turnId, claim.holder)).toBe('aborted');
    expect(await q.requeue(key, claim.turnId, claim.holder, { delayMs: 0, attempt: 2, round: 0 })).toBe('dropped');
    expect(await q.depth(key)).toEqual({ pending: 0, active: 0 });
  });

  it('debounces rapid-fire messages into one turn', async () => {
    const q = queue({ debounceMs: 300 });
    await beat(q);
    const [first, second] = [inboundMessage(), inboundMessage()];
    const key = sessionKeyOf(first);
    await q.enqueue(key, first);
    await q.enqueue(key, second);
    expect(await due(q, key)).toBe(false);
    expect((await q.acquire(key, WORKER)).kind).toBe('waiting');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await due(q, key)).toBe(true);
    const claim = await acquired(q, key);
    expect(claim.messages.map((m) => m.text)).toEqual([first.text, second.text]);
  });

  it('holds an album until its newest part has waited, then answers all its parts as one turn (other messages after)', async () => {
    const q = queue({ albumWaitMs: 300 });
    await beat(q);
    const album = [1, 2, 3].map(() => inboundMessage({ mediaGroupId: 'telegram:1:42:album-7' }));
    const after = inboundMessage();
    const key = sessionKeyOf(album[0]!);
    await q.enqueue(key, album[0]!);
    await q.enqueue(key, album[1]!);
    expect((await q.acquire(key, WORKER)).kind).toBe('waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await q.enqueue(key, album[2]!);
    await q.enqueue(key, after);
    expect((await q.acquire(key, WORKER)).kind).toBe('waiting');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const claim = await acquired(q, key);
    expect(claim.messages.map((m) => m.dedupeKey)).toEqual(album.map((m) => m.dedupeKey));
    await q.release(key, claim.turnId, claim.holder, wrote(claim));
    const next = await acquired(q, key);
    expect(next.messages.map((m) => m.dedupeKey)).toEqual([after.dedupeKey]);
  });

  it('claims a message that finds its session idle for the enqueuing worker, as acquire would have', async () => {
    const q = queue();
    await beat(q);
    const first = inboundMessage();
    const key = sessionKeyOf(first);
    const enqueued = await q.enqueue(key, first, Date.now(), WORKER);
    if (enqueued.kind !== 'claimed') throw new Error(`expected a claim, got ${enqueued.kind}`);
    const { claim } = enqueued;
    expect(claim).toMatchObject({ resumed: false, attempt: 1, round: 0, historyVersion: '', messages: [JSON.parse(JSON.stringify(first))] });
    expect(claim.holder.startsWith(`${WORKER}/`)).toBe(true);
    expect(await q.depth(key)).toEqual({ pending: 0, active: 1 });
    // the turn is an ordinary running turn: no other worker gets it, it renews, and it is this worker's to hand back
    expect((await q.acquire(key, 'worker-b')).kind).toBe('busy');
    expect(await q.renew(key, claim.turnId, claim.holder)).toBe('ok');
    expect(await redis.sismember(q.keys.shard(q.keys.shardOf(key)).held(WORKER), `${key}\x1f${claim.turnId}`)).toBe(1);
    // a message meanwhile waits behind it, then goes to whoever acquires after the release
    const second = inboundMessage();
    expect(await q.enqueue(key, second, Date.now(), WORKER)).toEqual({ kind: 'queued', running: 1 });
    const released = await q.release(key, claim.turnId, claim.holder, wrote(claim));
    expect(released.kind).toBe('released');
    const next = await acquired(q, key, 'worker-b');
    expect(next.messages.map((message) => message.text)).toEqual([second.text]);
    expect(next.historyVersion).toBe(released.kind === 'released' ? released.historyVersion : '');
    // and a redelivery of the first is still a duplicate
    expect(await q.enqueue(key, first, Date.now(), WORKER)).toEqual({ kind: 'duplicate' });
  });

  it('a claimed turn whose worker died is taken back like an acquired one', async () => {
    const q = queue({ leaseMs: 60_000 });
    await beat(q, 'doomed', 300);
    await beat(q, WORKER);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    const enqueued = await q.enqueue(key, message, Date.now(), 'doomed');
    if (enqueued.kind !== 'claimed') throw new Error(`expected a claim, got ${enqueued.kind}`);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const takeover = await acquired(q, key, WORKER);
    expect(takeover).toMatchObject({ turnId: enqueued.claim.turnId, resumed: true, attempt: 2, messages: enqueued.claim.messages });
  });

  it('queues instead of claiming when work waits or runs, a debounce or an album holds the message', async () => {
    const waiting = queue();
    const dm = inboundMessage();
    const dmKey = sessionKeyOf(dm);
    await waiting.enqueue(dmKey, dm);
    expect(await waiting.enqueue(dmKey, inboundMessage(), Date.now(), WORKER)).toEqual({ kind: 'queued', running: 0 });

    const group = queue();
    await beat(group);
    const member = inboundMessage({ chatType: 'group' });
    const groupKey = sessionKeyOf(member);
    expect((await group.enqueue(groupKey, member, Date.now(), WORKER)).kind).toBe('claimed');
    // a group's second slot is free, but a turn runs: acquire's bookkeeping (take-back, collecting) decides
    expect(await group.enqueue(groupKey, inboundMessage({ chatType: 'group' }), Date.now(), WORKER)).toEqual({ kind: 'queued', running: 1 });

    const debounced = queue({ debounceMs: 500 });
    const quick = inboundMessage();
    expect(await debounced.enqueue(sessionKeyOf(quick), quick, Date.now(), WORKER)).toEqual({ kind: 'queued', running: 0 });

    const albums = queue({ albumWaitMs: 500 });
    const part = inboundMessage({ mediaGroupId: 'album-1' });
    expect(await albums.enqueue(sessionKeyOf(part), part, Date.now(), WORKER)).toEqual({ kind: 'queued', running: 0 });
  });

  it('spreads sessions over its shards, each with its own schedule', async () => {
    const q = queue();
    const keys = Array.from({ length: 40 }, (_, index) => `agent:main:telegram:1:dm:${index}`);
    const shards = new Set(keys.map((key) => q.keys.shardOf(key)));
    expect(shards.size).toBe(4);
    for (const key of keys) await q.enqueue(key, inboundMessage());
    let popped = 0;
    for (let shard = 0; shard < 4; shard++) popped += (await q.popDue(shard, 100)).sessionKeys.length;
    expect(popped).toBe(40);
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
