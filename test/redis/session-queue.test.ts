import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { inPlatformOrder } from '../../src/redis/session-queue.js';
import type { InboundMessage } from '../../src/core/inbound-message.js';
import { inboundMessage } from '../support/messages.js';
import { sessionQueueHarness, wrote } from './support/session-queue-harness.js';

const { redis, WORKER, queue, beat, acquired, due, waitsFor } = sessionQueueHarness();

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
    const popped = await q.popDue(shard, 10, WORKER, 5_000);
    expect(popped.sessionKeys).toEqual([key]);
    // still scheduled, later: a worker that dies before it acquires loses nothing
    expect(await due(q, key)).toBe(false);
    expect((await q.popDue(shard, 10, WORKER, 5_000)).sessionKeys).toEqual([]);
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
    // the releasing worker has the session's history: the next turn waits for it first, any worker later
    expect(await waitsFor(q, key, WORKER)).toBe(true);
    expect(await due(q, key)).toBe(false);
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

  it('spreads sessions over its shards, each with its own schedule', async () => {
    const q = queue();
    const keys = Array.from({ length: 40 }, (_, index) => `agent:main:telegram:1:dm:${index}`);
    const shards = new Set(keys.map((key) => q.keys.shardOf(key)));
    expect(shards.size).toBe(4);
    for (const key of keys) await q.enqueue(key, inboundMessage());
    let popped = 0;
    for (let shard = 0; shard < 4; shard++) popped += (await q.popDue(shard, 100, WORKER)).sessionKeys.length;
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

describe('SessionQueue conversations (/new)', () => {
  it('gives a turn the conversation it was first claimed in, through a retry, and counts on from the stored one', async () => {
    const q = queue();
    await beat(q);
    const first = inboundMessage();
    const key = sessionKeyOf(first);
    // never a /new: the queue has no count, the turn takes the stored session's
    await q.enqueue(key, first);
    const a = await acquired(q, key);
    expect(a.conversation).toBeUndefined();
    expect(await q.conversationOf(key)).toBeUndefined();
    // /new while it runs, the stored session being in conversation 4 (the queue's count lost with an old Redis)
    expect(await q.newConversation(key, 4)).toBe(5);
    expect(await q.conversationOf(key)).toBe(5);
    expect(await q.requeue(key, a.turnId, a.holder, { delayMs: 0, attempt: 2, round: 0 })).toBe('requeued');
    await q.enqueue(key, inboundMessage());
    // the turn put back is still of the conversation it started in; the message after /new is of the new one
    const retried = await acquired(q, key);
    expect(retried).toMatchObject({ turnId: a.turnId, resumed: true, conversation: undefined });
    expect(retried.messages.map((message) => message.text)).toEqual([first.text]);
    await q.release(key, retried.turnId, retried.holder, wrote(retried));
    const next = await acquired(q, key);
    expect(next.conversation).toBe(5);
    await q.release(key, next.turnId, next.holder, wrote(next));
    // a second /new counts on from the queue's own count; a turn claimed at enqueue carries it too
    expect(await q.newConversation(key, 0)).toBe(6);
    const claimed = await q.enqueue(key, inboundMessage(), Date.now(), WORKER);
    expect(claimed.kind === 'claimed' && claimed.claim.conversation).toBe(6);
  });

  it('keeps a running turn’s conversation when its worker dies and another takes it back', async () => {
    const q = queue({ leaseMs: 60_000 });
    await beat(q, 'doomed', 300);
    await beat(q, WORKER);
    const message = inboundMessage();
    const key = sessionKeyOf(message);
    await q.newConversation(key, 0);
    await q.enqueue(key, message);
    const running = await acquired(q, key, 'doomed');
    expect(running.conversation).toBe(1);
    await q.newConversation(key, 0);
    // the worker stops beating: the next acquire takes the turn back and resumes it
    await new Promise((resolve) => setTimeout(resolve, 350));
    const taken = await acquired(q, key, WORKER);
    expect(taken).toMatchObject({ turnId: running.turnId, resumed: true, conversation: 1 });
  });
});
