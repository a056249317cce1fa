import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { inboundMessage } from '../support/messages.js';
import { sessionQueueHarness, wrote } from './support/session-queue-harness.js';

const { redis, WORKER, queue, beat, acquired, due, heldTurn } = sessionQueueHarness();

/** Leases, takeover, retries, parked turns, /stop and the claim at enqueue. */
describe('SessionQueue: held turns', () => {
  it('takes back an expired lease with the same turn id and the same messages, as a further attempt', async () => {
    const q = queue({ leaseMs: 1_000 });
    await beat(q);
    const { key, claim } = await heldTurn(q);
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
    const { key, claim } = await heldTurn(q);
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
    const { message: first, key, claim } = await heldTurn(q);
    const second = inboundMessage();
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
    const { message: first, key, claim } = await heldTurn(q);
    const second = inboundMessage();
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
    const { key, claim } = await heldTurn(q);
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
});
