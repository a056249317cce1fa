import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { DeadLetters } from '../../src/redis/dead-letters.js';
import { SessionQueueReader } from '../../src/redis/session-queue-reader.js';
import { TurnsPause } from '../../src/redis/turns-pause.js';
import type { SessionQueue } from '../../src/redis/session-queue.js';
import { inboundMessage } from '../support/messages.js';
import { sessionQueueHarness, wrote } from './support/session-queue-harness.js';

const { redis, WORKER, queue, beat, acquired } = sessionQueueHarness();

function dm(chatId: string, text: string) {
  const message = inboundMessage({ text });
  return { ...message, sender: { id: chatId, name: 'Ada' }, conversation: { ...message.conversation, chatId } };
}

/** A turn held by WORKER that fails `failures` times with the given reasons, then is dead-lettered and released. */
async function abandoned(q: SessionQueue, chatId: string, texts: string[]) {
  const messages = texts.map((text) => dm(chatId, text));
  const key = sessionKeyOf(messages[0]!);
  for (const message of messages) await q.enqueue(key, message);
  let claim = await acquired(q, key);
  expect(await q.recordFailure(key, claim.turnId, claim.holder, { round: 0, attempt: 1, reason: 'model down (500)' })).toMatchObject({ firstFailedAt: expect.any(Number) });
  await q.requeue(key, claim.turnId, claim.holder, { delayMs: 0, attempt: 2, round: 0 });
  claim = await acquired(q, key);
  expect(claim).toMatchObject({ attempt: 2, resumed: true });
  const second = await q.recordFailure(key, claim.turnId, claim.holder, { round: 0, attempt: 2, reason: 'model down (503)' });
  expect(second!.firstFailedAt).toBeLessThanOrEqual(second!.now);
  expect(await q.deadLetter(key, claim.turnId, claim.holder, 'model down (503)')).toBe('dead');
  await q.release(key, claim.turnId, claim.holder, wrote(claim));
  return { key, claim, messages };
}

describe('dead letters', () => {
  it('keeps an abandoned turn with its error and every attempt’s reason; fenced by the holder', async () => {
    // interrupt mode: both messages are one turn
    const q = queue({ mode: 'interrupt' });
    await beat(q);
    const letters = new DeadLetters(redis, q.keys);
    const { key, claim, messages } = await abandoned(q, '7', ['first', 'second']);
    // a holder that lost the turn writes nothing
    expect(await q.deadLetter(key, claim.turnId, `${WORKER}/stale`, 'late')).toBe('lost');
    expect(await q.recordFailure(key, claim.turnId, `${WORKER}/stale`, { round: 0, attempt: 1, reason: 'late' })).toBeUndefined();

    expect(await letters.count()).toBe(1);
    const [letter] = await letters.list(0, 9);
    expect(letter).toMatchObject({ id: letters.idOf(key, claim.turnId), sessionKey: key, error: 'model down (503)', attempt: 2 });
    expect(letter!.messages.map((message) => message.text)).toEqual(['first', 'second']);
    expect(letter!.attempts.map(({ attempt, reason }) => [attempt, reason])).toEqual([
      [1, 'model down (500)'],
      [2, 'model down (503)'],
    ]);
    expect(await q.depth(key)).toEqual({ pending: 0, active: 0 });
    expect(messages).toHaveLength(2);
  });

  it('retries a dead letter once, at the head of its session, before the messages waiting there', async () => {
    const q = queue();
    await beat(q);
    const letters = new DeadLetters(redis, q.keys);
    const { key } = await abandoned(q, '8', ['lost one']);
    const later = dm('8', 'later');
    await q.enqueue(key, later);
    const [letter] = await letters.list(0, 0);
    expect(await letters.retry(letter!.id)).toBe('retried');
    // a second Retry, or a Discard after it, finds nothing: the messages run once
    expect(await letters.retry(letter!.id)).toBe('gone');
    expect(await letters.discard(letter!.id)).toBe('gone');
    expect(await letters.count()).toBe(0);

    const retried = await acquired(q, key);
    expect(retried.messages.map((message) => message.text)).toEqual(['lost one']);
    expect(retried).toMatchObject({ attempt: 1, round: 0, resumed: true });
    expect(retried.turnId).not.toBe(letter!.id.split('.')[1]);
    await q.release(key, retried.turnId, retried.holder, wrote(retried));
    const next = await acquired(q, key);
    expect(next.messages.map((message) => message.text)).toEqual(['later']);
  });

  it('discards a dead letter: its messages are not run', async () => {
    const q = queue();
    await beat(q);
    const letters = new DeadLetters(redis, q.keys);
    const { key } = await abandoned(q, '9', ['dropped']);
    const [letter] = await letters.list(0, 0);
    expect(await letters.discard(letter!.id)).toBe('discarded');
    expect(await letters.retry(letter!.id)).toBe('gone');
    expect(await letters.get(letter!.id)).toBeUndefined();
    expect((await q.acquire(key, WORKER)).kind).toBe('empty');
    // an id of no shard is refused without a read
    expect(await letters.get('99.x')).toBeUndefined();
  });
});

describe('SessionQueueReader', () => {
  it('reads running, parked, waiting and retrying work per session, bounded, and the workers beating', async () => {
    const q = queue();
    await beat(q);
    const reader = new SessionQueueReader(redis, q.keys, { maxEntriesPerSession: 2 });

    // a running turn with three messages waiting behind it
    const running = dm('10', 'running');
    const runningKey = sessionKeyOf(running);
    await q.enqueue(runningKey, running);
    const held = await acquired(q, runningKey);
    for (const text of ['w1', 'w2', 'w3']) await q.enqueue(runningKey, dm('10', text));
    // a turn put back for a retry, waiting out its backoff (after a /new: its conversation rides before its body)
    const failing = dm('11', 'failing');
    const failingKey = sessionKeyOf(failing);
    await q.newConversation(failingKey, 0);
    await q.enqueue(failingKey, failing);
    const failed = await acquired(q, failingKey);
    await q.requeue(failingKey, failed.turnId, failed.holder, { delayMs: 60_000, attempt: 2, round: 0 });
    // a parked turn
    const parked = dm('12', 'parked');
    const parkedKey = sessionKeyOf(parked);
    await q.enqueue(parkedKey, parked);
    const parking = await acquired(q, parkedKey);
    expect(await q.park(parkedKey, parking.turnId, parking.holder, Date.now() + 600_000)).toBe('parked');

    const snapshot = await reader.snapshot();
    const byKey = new Map(snapshot.sessions.map((session) => [session.sessionKey, session]));
    const busy = byKey.get(runningKey)!;
    expect(busy).toMatchObject({ pending: 3, running: 1 });
    // bounded: two entries read of three (the count stays exact)
    expect(busy.entries.map((entry) => [entry.kind, entry.messages[0]!.text])).toEqual([
      ['message', 'w1'],
      ['message', 'w2'],
    ]);
    expect(busy.turns).toMatchObject([{ turnId: held.turnId, worker: WORKER, parked: false, attempt: 1 }]);
    const retrying = byKey.get(failingKey)!;
    expect(retrying.entries).toMatchObject([{ kind: 'turn', id: failed.turnId, attempt: 2 }]);
    expect(retrying.entries[0]!.messages.map((message) => message.text)).toEqual(['failing']);
    expect(retrying.entries[0]!.at).toBeGreaterThan(snapshot.now + 50_000);
    expect(byKey.get(parkedKey)!.turns).toMatchObject([{ turnId: parking.turnId, parked: true, worker: undefined }]);
    expect(snapshot.workers).toEqual([{ workerId: WORKER, aliveUntil: expect.any(Number), turns: 1 }]);
    expect(snapshot.truncated).toBe(false);

    const small = await new SessionQueueReader(redis, q.keys, { maxSessionsPerShard: 0 }).snapshot();
    expect(small.sessions).toEqual([]);
    expect(small.truncated).toBe(true);
  });

  it('pauses and resumes every turn through one flag', async () => {
    const q = queue();
    const pause = new TurnsPause(redis, q.keys);
    expect(await pause.isPaused()).toBe(false);
    await pause.pause();
    expect(await pause.isPaused()).toBe(true);
    await pause.resume();
    expect(await pause.isPaused()).toBe(false);
  });
});
