import { Redis } from 'ioredis';
import { BudgetStore, KeySpace } from '../../src/redis/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../src/budgets/index.js';
import { createUsageReport } from '../../src/usage/index.js';
import type { InboundMessage } from '../../src/core/inbound-message.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';
import { createConsoleFixture, NOW, type ConsoleFixture } from '../console/support/console-fixture.js';

let fixture: ConsoleFixture;
const redis = new Redis(TEST_REDIS_URL);
const prefix = uniqueName('usage-report');

beforeAll(async () => {
  fixture = await createConsoleFixture();
});

afterAll(async () => {
  const keys = await redis.keys(`{${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await fixture?.close();
});

function messageIn(chatType: 'dm' | 'group', channel: 'telegram' | 'slack', accountId: string, chatId: string, userId: string): InboundMessage {
  return {
    conversation: { channel, accountId, chatId, chatType, messageId: '1' },
    dedupeKey: 'x',
    sender: { id: userId },
    text: '/usage',
    sentAt: NOW,
    addressed: true,
    agentId: 'main',
  };
}

async function runSums(where: string, from: string) {
  const rows = await fixture.database.db.execute(
    `SELECT coalesce(sum(r.input_tokens + r.cache_read_tokens + r.cache_write_tokens), 0)::bigint AS input, coalesce(sum(r.output_tokens), 0)::bigint AS output,
            coalesce(sum(r.cost_usd), 0) AS cost, count(*)::int AS turns
     FROM runs r JOIN sessions s ON s.id = r.session_id WHERE ${where} AND r.started_at >= '${from}' AND r.started_at < '2026-03-11'`,
  );
  const [row] = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ input: string; output: string; cost: number; turns: number }>;
  const number = new Intl.NumberFormat('en-US');
  return `${number.format(Number(row!.input))} tokens in, ${number.format(Number(row!.output))} out, $${Number(row!.cost).toFixed(4)} (${row!.turns} turn${row!.turns === 1 ? '' : 's'})`;
}

describe('/usage', () => {
  it('sums the runs of the user’s DMs today and this month, and shows the budget left', async () => {
    const ledger = new BudgetLedger(new BudgetStore(redis, new KeySpace(prefix, 1, false)));
    const report = createUsageReport({ db: fixture.database.db, ledger, limitsFor: async () => ({ userDailyUsd: 1, agentDailyUsd: 5 }), clock: () => NOW });
    const message = messageIn('dm', 'telegram', 'bot', '4242', '4242');
    const reserved = await ledger.reserve({ user: 'telegram:4242', chat: 'telegram:bot:4242', agent: 'main' }, {}, 1, NOW);
    if (reserved.kind !== 'reserved') throw new Error('not reserved');
    await ledger.settle(reserved.reservation, 0.3, NOW);

    const text = await report(message);
    const dm = "s.chat_type = 'dm' AND s.user_id = '4242'";
    expect(text).toBe(
      [
        'Usage of your direct messages (UTC):',
        `Today: ${await runSums(dm, '2026-03-10')}`,
        `This month: ${await runSums(dm, '2026-03-01')}`,
        'Daily budget left: $0.7000 of $1.0000 for you; $4.7000 of $5.0000 for the assistant (resets at midnight UTC)',
      ].join('\n'),
    );
    // not zeros compared with zeros: the fixture's DM has a turn this month (on 2026-03-09)
    expect(text).toContain('This month: 150 tokens in, 30 out, $0.0015 (1 turn)');
  });

  it('sums the group chat’s runs in a group, and says when nothing limits it', async () => {
    const report = createUsageReport({ db: fixture.database.db, ledger: new BudgetLedger(new BudgetStore(redis, new KeySpace(prefix, 1, false))), limitsFor: async () => ({ userDailyUsd: 1 }), clock: () => NOW });
    const text = await report(messageIn('group', 'slack', 'T1', 'C0OPS', 'U1'));
    const group = "s.chat_type = 'group' AND s.channel = 'slack' AND s.account_id = 'T1' AND s.chat_id = 'C0OPS'";
    expect(text.split('\n')).toEqual([
      'Usage of this chat (UTC):',
      `Today: ${await runSums(group, '2026-03-10')}`,
      `This month: ${await runSums(group, '2026-03-01')}`,
      'Daily budget: no limit',
    ]);
    expect(text).toContain('$0.2500 (1 turn)');
  });
});
