import { afterAll, describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../src/budgets/index.js';
import { BudgetStore, createRedisClient, KeySpace } from '../../src/redis/index.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

const NOON = Date.parse('2026-03-10T12:00:00Z');

// on one Redis, and on a Redis Cluster in `npm run test:cluster`: a day's batch is one script call over many keys
describe('batched spend on the Redis the service runs on', () => {
  const target = testRedisTarget();
  const redis = createRedisClient(target, 'worker');
  const prefix = uniqueName('spend');
  const ledger = new BudgetLedger(new BudgetStore(redis, new KeySpace(prefix, 1, target.cluster)), { batchMs: 60_000 });

  afterAll(async () => {
    await deleteTestKeys(redis, `{${prefix}:*`);
    await redis.quit();
  });

  it('writes the spend of many subjects in one batch, each read back exact, with the day’s expiry', async () => {
    const subjects = Array.from({ length: 40 }, (_, index) => ({ user: `telegram:${index}`, chat: `telegram:7:${index}`, agent: 'main' }));
    for (const subject of subjects) ledger.record(ledger.spendKeys(subject, NOON), 0.25 * (1 + Number(subject.user.split(':')[1])), NOON);
    await ledger.flush();
    for (const subject of subjects.slice(0, 5)) {
      const usd = 0.25 * (1 + Number(subject.user.split(':')[1]));
      expect(await ledger.spentToday(subject, NOON)).toEqual({ user: usd, chat: usd, agent: 205 });
    }
    expect(await redis.ttl(ledger.spendKeys(subjects[0]!, NOON)[2])).toBeGreaterThan(12 * 3600);
  });
});
