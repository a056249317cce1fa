import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetLedger, type BudgetSubject } from '../../src/budgets/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const NOON = Date.parse('2026-03-10T12:00:00Z');
const DAY = 86_400_000;
const subject: BudgetSubject = { user: 'telegram:42', chat: 'telegram:7:42', agent: 'main' };

describe('budget Lua scripts on real Redis', () => {
  const redis = new Redis(TEST_REDIS_URL);
  let prefix: string;
  let ledger: BudgetLedger;

  beforeEach(() => {
    prefix = uniqueName('budget');
    ledger = new BudgetLedger(redis, prefix);
  });
  afterEach(async () => {
    const keys = await redis.keys(`{${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('reserves on all three budgets, settles to the real cost, and puts every key of a day in one hash slot', async () => {
    const outcome = await ledger.reserve(subject, { userDailyUsd: 1 }, 0.25, NOON);
    expect(outcome.reserved).toBe(true);
    expect(await ledger.spentToday(subject, NOON)).toEqual({ user: 0.25, chat: 0.25, agent: 0.25 });

    if (!outcome.reserved) throw new Error('unreachable');
    await ledger.settle(outcome.reservation, 0.01, NOON + 1000);
    expect(await ledger.spentToday(subject, NOON)).toEqual({ user: 0.01, chat: 0.01, agent: 0.01 });

    const keys = ledger.spendKeys(subject, NOON);
    const tags = new Set(keys.map((key) => /^\{([^}]+)\}/.exec(key)?.[1]));
    expect(tags).toEqual(new Set([`${prefix}:budget:2026-03-10`]));
    for (const key of keys) {
      const ttl = await redis.ttl(key);
      // 12 hours to midnight plus an hour of grace
      expect(ttl).toBeGreaterThan(13 * 3600 - 60);
      expect(ttl).toBeLessThanOrEqual(13 * 3600);
    }
  });

  it('refuses once a budget is used up, names the scope, and tells the chat only the first time', async () => {
    const first = await ledger.reserve(subject, { chatDailyUsd: 0.5 }, 0.5, NOON);
    expect(first.reserved).toBe(true);

    const refused = await ledger.reserve(subject, { chatDailyUsd: 0.5 }, 0.1, NOON);
    expect(refused).toEqual({ reserved: false, scope: 'chat', limitUsd: 0.5, notify: true, resetsAt: new Date('2026-03-11T00:00:00Z') });
    const again = await ledger.reserve(subject, { chatDailyUsd: 0.5 }, 0.1, NOON + 60_000);
    expect(again).toMatchObject({ reserved: false, scope: 'chat', notify: false });
    // a refusal reserves nothing
    expect(await ledger.spentToday(subject, NOON)).toEqual({ user: 0.5, chat: 0.5, agent: 0.5 });

    // another chat of the same user is not blocked by this chat's limit, but by the user's
    const otherChat = { ...subject, chat: 'telegram:7:99' };
    expect((await ledger.reserve(otherChat, { chatDailyUsd: 0.5 }, 0.1, NOON)).reserved).toBe(true);
    expect(await ledger.reserve(otherChat, { userDailyUsd: 0.6 }, 0.1, NOON)).toMatchObject({ reserved: false, scope: 'user', notify: true });
  });

  it('starts from zero the next UTC day', async () => {
    await ledger.reserve(subject, { agentDailyUsd: 0.1 }, 0.2, NOON);
    expect(await ledger.reserve(subject, { agentDailyUsd: 0.1 }, 0.2, NOON)).toMatchObject({ reserved: false, scope: 'agent' });

    const tomorrow = NOON + DAY;
    expect((await ledger.reserve(subject, { agentDailyUsd: 0.1 }, 0.2, tomorrow)).reserved).toBe(true);
    expect(await ledger.spentToday(subject, tomorrow)).toEqual({ user: 0.2, chat: 0.2, agent: 0.2 });
  });

  it('a zero limit refuses everything; no limit never refuses', async () => {
    expect(await ledger.reserve(subject, { userDailyUsd: 0 }, 0.001, NOON)).toMatchObject({ reserved: false, scope: 'user' });
    for (let call = 0; call < 5; call++) expect((await ledger.reserve(subject, {}, 100, NOON)).reserved).toBe(true);
    expect((await ledger.spentToday(subject, NOON)).agent).toBe(500);
  });

  it('concurrent reservations from many connections overshoot the limit by at most one reservation', async () => {
    const clients = Array.from({ length: 8 }, () => new Redis(TEST_REDIS_URL));
    try {
      const ledgers = clients.map((client) => new BudgetLedger(client, prefix));
      const reservation = 0.03;
      const outcomes = await Promise.all(
        Array.from({ length: 80 }, (_, index) => ledgers[index % ledgers.length]!.reserve(subject, { agentDailyUsd: 1 }, reservation, NOON)),
      );
      const admitted = outcomes.filter((outcome) => outcome.reserved).length;
      // admitted while the spend was below $1: 34 × 0.03 = 1.02
      expect(admitted).toBe(Math.ceil(1 / reservation));
      const spent = (await ledger.spentToday(subject, NOON)).agent;
      expect(spent).toBeGreaterThanOrEqual(1);
      expect(spent).toBeLessThan(1 + reservation);
      expect(outcomes.filter((outcome) => !outcome.reserved && outcome.notify)).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });
});
