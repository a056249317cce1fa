import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { BudgetStore, KeySpace } from '../../src/redis/index.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetLedger, type BudgetSubject, type ReserveOutcome } from '../../src/budgets/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const NOON = Date.parse('2026-03-10T12:00:00Z');
const DAY = 86_400_000;
const subject: BudgetSubject = { user: 'telegram:42', chat: 'telegram:7:42', agent: 'main' };

function reservationOf(outcome: ReserveOutcome) {
  if (outcome.kind !== 'reserved') throw new Error(`expected a reservation, got ${JSON.stringify(outcome)}`);
  return outcome.reservation;
}

describe('budget Lua scripts on real Redis', () => {
  const redis = new Redis(TEST_REDIS_URL);
  let prefix: string;
  let ledger: BudgetLedger;

  beforeEach(() => {
    prefix = uniqueName('budget');
    ledger = new BudgetLedger(new BudgetStore(redis, new KeySpace(prefix, 1, false)));
  });
  afterEach(async () => {
    const keys = await redis.keys(`{${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('reserves on all three budgets, settles to the real cost, and puts every key of a day in one hash slot', async () => {
    const reservation = reservationOf(await ledger.reserve(subject, { userDailyUsd: 1 }, 0.25, NOON));
    expect(await ledger.spentToday(subject, NOON)).toEqual({ user: 0.25, chat: 0.25, agent: 0.25 });

    await ledger.settle(reservation, 0.01, NOON + 1000);
    expect(await ledger.spentToday(subject, NOON)).toEqual({ user: 0.01, chat: 0.01, agent: 0.01 });
    expect(await redis.hgetall(reservation.keys[0])).toEqual({ spent: String(0.01e9), reserved: '0' });

    const tags = new Set(reservation.keys.map((key) => /^\{([^}]+)\}/.exec(key)?.[1]));
    expect(tags).toEqual(new Set([`${prefix}:budget:2026-03-10`]));
    for (const key of reservation.keys) {
      const ttl = await redis.ttl(key);
      // 12 hours to midnight plus an hour of grace
      expect(ttl).toBeGreaterThan(13 * 3600 - 60);
      expect(ttl).toBeLessThanOrEqual(13 * 3600);
    }
  });

  it('refuses once the settled spend reached a limit, names the scope, and tells the chat only the first time', async () => {
    await ledger.settle(reservationOf(await ledger.reserve(subject, { chatDailyUsd: 0.5 }, 0.6, NOON)), 0.5, NOON);

    const refused = await ledger.reserve(subject, { chatDailyUsd: 0.5 }, 0.1, NOON);
    expect(refused).toEqual({ kind: 'refused', scope: 'chat', limitUsd: 0.5, notify: true, resetsAt: new Date('2026-03-11T00:00:00Z') });
    expect(await ledger.reserve(subject, { chatDailyUsd: 0.5 }, 0.1, NOON + 60_000)).toMatchObject({ kind: 'refused', scope: 'chat', notify: false });
    // a refusal reserves nothing
    expect(await ledger.spentToday(subject, NOON)).toEqual({ user: 0.5, chat: 0.5, agent: 0.5 });

    // another chat of the same user is not held by this chat's limit, but by the user's
    const otherChat = { ...subject, chat: 'telegram:7:99' };
    expect((await ledger.reserve(otherChat, { chatDailyUsd: 0.5 }, 0.1, NOON)).kind).toBe('reserved');
    expect(await ledger.reserve(otherChat, { userDailyUsd: 0.5 }, 0.1, NOON)).toMatchObject({ kind: 'refused', scope: 'user', notify: true });
  });

  it('is busy while only calls in flight hold the limit, and refuses on the final ask', async () => {
    const first = reservationOf(await ledger.reserve(subject, { agentDailyUsd: 1 }, 1.5, NOON));
    expect(await ledger.reserve(subject, { agentDailyUsd: 1 }, 0.1, NOON)).toEqual({ kind: 'busy', scope: 'agent' });
    expect(await ledger.reserve(subject, { agentDailyUsd: 1 }, 0.1, NOON, true)).toMatchObject({ kind: 'refused', scope: 'agent', notify: true });
    // the call in flight cost less than it held: the budget opens again
    await ledger.settle(first, 0.2, NOON);
    expect((await ledger.reserve(subject, { agentDailyUsd: 1 }, 0.1, NOON)).kind).toBe('reserved');
  });

  it('starts from zero the next UTC day', async () => {
    await ledger.settle(reservationOf(await ledger.reserve(subject, { agentDailyUsd: 0.1 }, 0.2, NOON)), 0.2, NOON);
    expect(await ledger.reserve(subject, { agentDailyUsd: 0.1 }, 0.2, NOON)).toMatchObject({ kind: 'refused', scope: 'agent' });

    const tomorrow = NOON + DAY;
    expect((await ledger.reserve(subject, { agentDailyUsd: 0.1 }, 0.2, tomorrow)).kind).toBe('reserved');
    expect(await ledger.spentToday(subject, tomorrow)).toEqual({ user: 0.2, chat: 0.2, agent: 0.2 });
  });

  it('a zero limit refuses everything; no limit never refuses', async () => {
    expect(await ledger.reserve(subject, { userDailyUsd: 0 }, 0.001, NOON)).toMatchObject({ kind: 'refused', scope: 'user' });
    for (let call = 0; call < 5; call++) expect((await ledger.reserve(subject, {}, 100, NOON)).kind).toBe('reserved');
    expect((await ledger.spentToday(subject, NOON)).agent).toBe(500);
  });

  it('callers on many connections, each waiting while busy, overshoot the limit by at most one reservation', async () => {
    const clients = Array.from({ length: 8 }, () => new Redis(TEST_REDIS_URL));
    try {
      const ledgers = clients.map((client) => new BudgetLedger(new BudgetStore(client, new KeySpace(prefix, 1, false))));
      const limits = { agentDailyUsd: 1 };
      const reservation = 0.09;
      let calls = 0;
      // each of 40 callers: reserve (waiting while busy), "call the model" for a moment, settle what it cost
      const caller = async (index: number) => {
        const own = ledgers[index % ledgers.length]!;
        for (;;) {
          const outcome = await own.reserve(subject, limits, reservation, NOON);
          if (outcome.kind === 'refused') return outcome;
          if (outcome.kind === 'busy') {
            await delay(5);
            continue;
          }
          calls++;
          await delay(10 + (index % 5) * 3);
          await own.settle(outcome.reservation, 0.05 + (index % 4) * 0.01, NOON);
          return outcome;
        }
      };
      const outcomes = await Promise.all(Array.from({ length: 40 }, (_, index) => caller(index)));
      const spent = (await ledger.spentToday(subject, NOON)).agent;
      expect(spent).toBeGreaterThanOrEqual(1);
      expect(spent).toBeLessThanOrEqual(1 + reservation);
      expect(outcomes.filter((outcome) => outcome.kind === 'reserved')).toHaveLength(calls);
      expect(calls).toBeLessThan(40);
      expect(outcomes.filter((outcome) => outcome.kind === 'refused' && outcome.notify)).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });
  /** Calls per command so far, as Redis counts them (a script's commands included). */
  async function commandCalls(): Promise<Map<string, number>> {
    const text = await redis.info('commandstats');
    return new Map([...text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((match) => [match[1]!, Number(match[2])]));
  }

  it('batches the spend of calls under no limit: one write for many calls, the day\'s expiry set once per key, read back exact', async () => {
    const store = new BudgetStore(redis, new KeySpace(prefix, 1, false));
    const batched = new BudgetLedger(store, { batchMs: 60_000 });
    const before = Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);
    for (let call = 0; call < 50; call += 1) batched.record(batched.spendKeys(subject, NOON), 0.002, NOON);
    batched.record(batched.spendKeys({ ...subject, user: 'telegram:43', chat: 'telegram:7:43' }, NOON), 0.5, NOON);
    // nothing written yet: the batch waits for its timer or a read
    expect(await redis.exists(batched.spendKeys(subject, NOON)[0])).toBe(0);
    await batched.flush();
    const after = Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);
    // 5 keys (2 users, 2 chats, 1 agent): one HINCRBY and one EXPIRE each, run by one script call (EVALSHA, and EVAL
    // the first time this Redis sees the script) (+ the EXISTS and INFO of this test)
    expect(after - before).toBeLessThanOrEqual(5 * 2 + 2 + 2);
    expect(await batched.spentToday(subject, NOON)).toEqual({ user: 0.1, chat: 0.1, agent: 0.6 });
    expect(await redis.ttl(batched.spendKeys(subject, NOON)[0])).toBeGreaterThan(13 * 3600 - 60);

    // a later batch of the same day adds without setting the expiry again
    batched.record(batched.spendKeys(subject, NOON), 0.1, NOON + 1000);
    const beforeSecond = await commandCalls();
    await batched.flush();
    const afterSecond = await commandCalls();
    // one call from the client: the script, which adds to the three keys and sets no expiry
    expect(afterSecond.get('evalsha')! - beforeSecond.get('evalsha')!).toBe(1);
    expect(afterSecond.get('hincrby')! - beforeSecond.get('hincrby')!).toBe(3);
    expect((afterSecond.get('expire') ?? 0) - (beforeSecond.get('expire') ?? 0)).toBe(0);
    // a read writes what is unsaved first, and limits see the batched spend
    batched.record(batched.spendKeys(subject, NOON), 0.3, NOON + 2000);
    expect(await batched.spentToday(subject, NOON)).toEqual({ user: 0.5, chat: 0.5, agent: 1 });
    expect(await batched.reserve(subject, { userDailyUsd: 0.5 }, 0.01, NOON + 3000)).toMatchObject({ kind: 'refused', scope: 'user' });
  });

  it('keeps a batch that could not be written, and writes it with the next one', async () => {
    const broken = new Redis(TEST_REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    await new Promise((resolve) => broken.once('ready', resolve));
    // a manual disconnect does not reconnect: the batch's write fails
    const ended = new Promise((resolve) => broken.once('end', resolve));
    broken.disconnect();
    await ended;
    const errors: unknown[] = [];
    const failing = new BudgetLedger(new BudgetStore(broken, new KeySpace(prefix, 1, false)), { batchMs: 60_000, onError: (error) => errors.push(error) });
    failing.record(failing.spendKeys(subject, NOON), 0.25, NOON);
    await failing.flush();
    expect(errors).toHaveLength(1);
    await broken.connect();
    failing.record(failing.spendKeys(subject, NOON), 0.25, NOON);
    await failing.flush();
    expect(await ledger.spentToday(subject, NOON)).toEqual({ user: 0.5, chat: 0.5, agent: 0.5 });
    broken.disconnect();
  });
});
