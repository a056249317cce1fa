import { afterAll, describe, expect, it } from 'vitest';
import { deliverParts, SEND_DISPATCH_WINDOW_MS, SEND_LANDING_MARGIN_MS, type PartSender } from '../../channels/shared/index.js';
import { BotError } from '../../src/core/errors.js';
import type { DoubtResolution } from '../../src/core/index.js';
import { TurnAbortError } from '../../src/core/turn-abort.js';
import { createRedisClient, KeySpace, runningTurnValue, TurnStateStore } from '../../src/redis/index.js';
import { DeliveryRecords, type TurnLease } from '../../src/turn/delivery-records.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

/**
 * Issue 53: a send on its way when its holder stalls must not be doubled by the takeover. The intent's write is the
 * holder's check that it still holds the turn (save-delivery.lua), and a takeover that does not find a part waits out
 * the earlier send's recorded deadline before concluding it was not sent.
 */
const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const prefix = uniqueName('intent');
const keys = new KeySpace(prefix, 2, target.cluster);
const turnState = new TurnStateStore(redis, keys);

afterAll(async () => {
  await deleteTestKeys(redis, `{${prefix}:*`);
  await redis.quit();
});

let sessions = 0;
/** A turn held by a worker of its own, its lease running out at `expiry`, the worker beating until `beatingUntil` (never: absent). */
async function heldTurn(options: { expiry: number; beatingUntil?: number }): Promise<TurnLease> {
  sessions += 1;
  const lease = { sessionKey: `agent:main:slack:x:dm:U${sessions}`, turnId: `turn-${sessions}`, holder: `worker-${sessions}/token` };
  const session = keys.session(lease.sessionKey);
  await redis.hset(session.turns, lease.turnId, runningTurnValue(lease.holder, options.expiry));
  if (options.beatingUntil !== undefined) await redis.hset(session.alive, `worker-${sessions}`, String(options.beatingUntil));
  return lease;
}

const INTENT = { 'stream:answer': JSON.stringify({ sent: [], doubt: { part: 0, hint: {}, at: 1 } }) };

describe('save-delivery.lua: an intent is written only while its holder is known to hold the turn', () => {
  it('writes an intent while the lease runs and the worker beats', async () => {
    const lease = await heldTurn({ expiry: Date.now() + 60_000, beatingUntil: Date.now() + 60_000 });
    expect(await turnState.save(lease, INTENT, { intent: true })).toBe('ok');
    expect(await turnState.deliveryField(lease.sessionKey, lease.turnId, 'stream:answer')).toBe(INTENT['stream:answer']);
  });

  it('refuses an intent once the lease ran out, before any other worker took the turn back, and writes nothing', async () => {
    const lease = await heldTurn({ expiry: Date.now() - 1_000, beatingUntil: Date.now() + 60_000 });
    expect(await turnState.save(lease, INTENT, { intent: true })).toBe('expired');
    expect(await turnState.delivery(lease.sessionKey, lease.turnId)).toEqual({});
  });

  it('refuses an intent once the worker stopped beating (its turns may be taken over any moment)', async () => {
    const stale = await heldTurn({ expiry: Date.now() + 60_000, beatingUntil: Date.now() - 1_000 });
    expect(await turnState.save(stale, INTENT, { intent: true })).toBe('expired');
    const never = await heldTurn({ expiry: Date.now() + 60_000 });
    expect(await turnState.save(never, INTENT, { intent: true })).toBe('expired');
    expect(await turnState.delivery(stale.sessionKey, stale.turnId)).toEqual({});
  });

  it('still records what went out (no intent) after the lease ran out, and refuses every write of another holder', async () => {
    const lease = await heldTurn({ expiry: Date.now() - 1_000, beatingUntil: Date.now() - 1_000 });
    expect(await turnState.save(lease, { 'stream:answer': '{"sent":["1"]}' })).toBe('ok');
    expect(await turnState.save({ ...lease, holder: 'worker-other/1' }, INTENT, { intent: true })).toBe('lost');
    expect(await turnState.save({ ...lease, holder: 'worker-other/1' }, { 'stream:answer': '{"sent":[]}' })).toBe('lost');
  });
});

/** A chat on a platform: a part sent lands at once, or (`landLate`) only later, as a request held on its way. */
function chat(sendTimeoutMs: number) {
  const posted: string[] = [];
  const sends: string[] = [];
  const settles: number[] = [];
  const sender: PartSender<string> = {
    hint: () => ({}),
    sendTimeoutMs,
    async send(part) {
      sends.push(part);
      posted.push(part);
      return `id-${posted.length}`;
    },
    async settle(part) {
      settles.push(Date.now());
      const index = posted.indexOf(part);
      return index >= 0 ? { id: `id-${index + 1}`, resolution: 'found' } : { resolution: 'not_sent' };
    },
  };
  return { posted, sends, settles, sender, landLate: (part: string, ms: number) => setTimeout(() => posted.push(part), ms) };
}

describe('deliverParts: the holder’s check before a send, and the takeover’s wait for the send’s deadline', () => {
  it('a takeover that does not find the part waits for the earlier send’s deadline and finds it landed late: not sent twice', async () => {
    const lease = await heldTurn({ expiry: Date.now() + 60_000, beatingUntil: Date.now() + 60_000 });
    const resolutions: DoubtResolution[] = [];
    const records = new DeliveryRecords(turnState, (_channel, resolution) => resolutions.push(resolution));
    // the earlier holder recorded its intent with a deadline 600 ms away; its send lands 300 ms from now
    const deadline = Date.now() + 600;
    await turnState.save(lease, { 'stream:answer': JSON.stringify({ sent: [], doubt: { part: 0, hint: {}, at: Date.now(), deadline } }) }, { intent: true });
    const platform = chat(10_000);
    platform.landLate('the answer', 300);
    const progress = await records.resume(lease, 'answer', 'slack');
    expect(progress.inDoubt?.deadline).toBe(deadline);
    const ids = await deliverParts(['the answer'], progress, platform.sender);
    expect(ids).toEqual(['id-1']);
    expect(platform.posted).toEqual(['the answer']);
    expect(platform.sends).toEqual([]);
    expect(resolutions).toEqual(['found']);
    // looked once at once, and once more after the deadline and its margin
    expect(platform.settles).toHaveLength(2);
    expect(platform.settles[1]).toBeGreaterThanOrEqual(deadline + SEND_LANDING_MARGIN_MS);
  });

  it('past the deadline a part not found is sent at once, and its own intent records its deadline', async () => {
    const lease = await heldTurn({ expiry: Date.now() + 60_000, beatingUntil: Date.now() + 60_000 });
    const records = new DeliveryRecords(turnState);
    const at = Date.now() - 60_000;
    await turnState.save(lease, { 'stream:answer': JSON.stringify({ sent: [], doubt: { part: 0, hint: {}, at, deadline: at + 17_000 } }) }, { intent: true });
    const platform = chat(10_000);
    const progress = await records.resume(lease, 'answer', 'slack');
    const before = Date.now();
    // the intent each send finds recorded when it begins
    const intents: Array<{ part: number; at: number; deadline: number }> = [];
    const sender: PartSender<string> = {
      ...platform.sender,
      async send(part, index, hint) {
        const record = JSON.parse((await turnState.deliveryField(lease.sessionKey, lease.turnId, 'stream:answer'))!) as { doubt: { part: number; at: number; deadline: number } };
        intents.push(record.doubt);
        return platform.sender.send(part, index, hint);
      },
    };
    expect(await deliverParts(['one', 'two'], progress, sender)).toEqual(['id-1', 'id-2']);
    expect(platform.settles).toHaveLength(1);
    // each intent's deadline: its send's timeout and the dispatch window past the intent
    expect(intents.map((intent) => intent.part)).toEqual([0, 1]);
    for (const intent of intents) {
      expect(intent.at).toBeGreaterThanOrEqual(before);
      // `at` is taken as the intent is written, a moment (a millisecond tick on a busy machine) after the deadline
      expect(intent.deadline - intent.at).toBeLessThanOrEqual(SEND_DISPATCH_WINDOW_MS + 10_000);
      expect(intent.deadline - intent.at).toBeGreaterThan(SEND_DISPATCH_WINDOW_MS + 10_000 - 100);
    }
  });

  it('a send that failed (the platform answered 500, a reset, a timeout) moves its deadline to its end: a retry waits only the margin', async () => {
    const lease = await heldTurn({ expiry: Date.now() + 60_000, beatingUntil: Date.now() + 60_000 });
    const records = new DeliveryRecords(turnState);
    const platform = chat(10_000);
    const failing: PartSender<string> = {
      ...platform.sender,
      send: async () => {
        throw new BotError('platform', 'sendMessage failed: 500', { isRetryable: true });
      },
    };
    await expect(deliverParts(['the answer'], records.progress({ lease, stream: 'answer', channel: 'telegram' }), failing)).rejects.toBeInstanceOf(BotError);
    const failedAt = Date.now();
    const progress = await records.resume(lease, 'answer', 'telegram');
    expect(progress.inDoubt?.deadline).toBeLessThanOrEqual(failedAt);
    expect(progress.inDoubt!.deadline! - progress.inDoubt!.at).toBeLessThan(SEND_DISPATCH_WINDOW_MS + 10_000);
    expect(await deliverParts(['the answer'], progress, platform.sender)).toEqual(['id-1']);
    expect(platform.settles).toHaveLength(2);
    expect(platform.settles[1]! - platform.settles[0]!).toBeLessThanOrEqual(SEND_LANDING_MARGIN_MS + 1_000);
    expect(platform.sends).toEqual(['the answer']);
  });

  it('a holder whose lease ran out sends nothing: the intent is refused and the turn is tried again', async () => {
    const lease = await heldTurn({ expiry: Date.now() - 1_000, beatingUntil: Date.now() + 60_000 });
    const platform = chat(10_000);
    const progress = new DeliveryRecords(turnState).progress({ lease, stream: 'answer', channel: 'slack' });
    const failure = await deliverParts(['the answer'], progress, platform.sender).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BotError);
    expect((failure as BotError).isRetryable).toBe(true);
    expect(platform.sends).toEqual([]);
  });

  it('a holder that lost the turn to another sends nothing', async () => {
    const lease = await heldTurn({ expiry: Date.now() + 60_000, beatingUntil: Date.now() + 60_000 });
    const platform = chat(10_000);
    const progress = new DeliveryRecords(turnState).progress({ lease: { ...lease, holder: `${lease.holder}-other` }, stream: 'answer', channel: 'slack' });
    await expect(deliverParts(['the answer'], progress, platform.sender)).rejects.toBeInstanceOf(TurnAbortError);
    expect(platform.sends).toEqual([]);
  });
});
