import { randomUUID } from 'node:crypto';
import { BudgetStore, KeySpace } from '../../src/redis/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLedger, TurnBudgets } from '../../src/budgets/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { waitFor } from '../support/service-process.js';
import { uniqueName } from '../support/services.js';
import { createTurnFixture, type TurnFixture } from '../turn/turn-fixture.js';

let fixture: TurnFixture;
let prefix: string;

beforeAll(async () => {
  fixture = await createTurnFixture();
  prefix = uniqueName('budget-turns');
});

afterAll(async () => {
  const keys = await fixture.redis.keys(`{${prefix}:*`);
  if (keys.length) await fixture.redis.del(...keys);
  await fixture?.close();
});

const USER = 7101;
const sentTo = (chatId: number) => fixture.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

async function runRow(turnId: string) {
  const rows = await fixture.database.db.execute(`SELECT status, error, input_tokens FROM runs WHERE id = '${turnId}'`);
  return ((Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ status: string; error: string | null }>)[0];
}

describe('a turn against a used-up daily budget', () => {
  it('is not sent to the model, is stored as budget_exceeded, tells the chat once, and runs again the next UTC day', async () => {
    let now = Date.parse('2026-05-04T21:30:00Z');
    const clock = () => now;
    const metrics = new Metrics();
    const budgets = new TurnBudgets({
      ledger: new BudgetLedger(new BudgetStore(fixture.redis, new KeySpace(prefix, 1, false))),
      // one answered turn uses this chat's budget up (a few hundred tokens at $100 per million)
      defaults: { chatDailyUsd: 0.00001 },
      levelsFor: () => [],
      prices: { 'gpt-4o-mini': { input: 100, output: 100 } },
      clock,
      metrics,
      logger: createLogger({ level: 'silent' }),
    });
    const runTurn = fixture.runTurnWith(fixture.store, { budgets, clock, metrics });
    const turn = async (text: string) => {
      const turnId = randomUUID();
      const outcome = await runTurn(await fixture.request(turnId, [fixture.dmFrom(USER, text, fixture.telegram.botId)]));
      return { turnId, outcome };
    };

    const callsBefore = fixture.openai.modelCalls.length;
    const first = await turn('first question');
    expect(first.outcome.kind).toBe('completed');
    expect(fixture.openai.modelCalls.length).toBe(callsBefore + 1);
    expect(sentTo(USER).at(-1)?.params.text).toContain('You said: first question');

    const second = await turn('second question');
    expect(fixture.openai.modelCalls.length).toBe(callsBefore + 1);
    expect(await runRow(second.turnId)).toMatchObject({ status: 'budget_exceeded' });
    const notices = sentTo(USER).slice(1);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.params.text).toBe("Sorry, this chat's daily usage limit has been reached. It resets at midnight UTC (2026-05-05 00:00 UTC).");

    const third = await turn('third question');
    expect(await runRow(third.turnId)).toMatchObject({ status: 'budget_exceeded' });
    expect(sentTo(USER)).toHaveLength(2);
    expect(fixture.openai.modelCalls.length).toBe(callsBefore + 1);
    expect(await metrics.registry.getSingleMetricAsString('bot_budget_refusals_total')).toContain('bot_budget_refusals_total{agent="main",channel="telegram",scope="chat"} 2');
    const spend = (await metrics.registry.getSingleMetric('bot_llm_spend_usd_total')!.get()).values;
    const [firstRun] = await fixture.database.db.execute(`SELECT r.input_tokens, r.output_tokens FROM runs r WHERE r.id = '${first.turnId}'`).then((rows) => (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ input_tokens: number; output_tokens: number }>);
    // charged at the budget's price table ($100 per million tokens either way)
    expect(spend).toEqual([{ labels: { agent: 'main', channel: 'telegram' }, value: expect.closeTo(((Number(firstRun!.input_tokens) + Number(firstRun!.output_tokens)) * 100) / 1e6, 12) }]);

    now = Date.parse('2026-05-05T00:00:01Z');
    const nextDay = await turn('a new day');
    expect(nextDay.outcome.kind).toBe('completed');
    expect(fixture.openai.modelCalls.length).toBe(callsBefore + 2);
    expect(sentTo(USER).at(-1)?.params.text).toContain('You said: a new day');
    expect(await runRow(nextDay.turnId)).toMatchObject({ status: 'completed' });
  });

  it('without limits reserves nothing but still counts what each call cost', async () => {
    const ledger = new BudgetLedger(new BudgetStore(fixture.redis, new KeySpace(prefix, 1, false)));
    const now = Date.parse('2026-05-06T10:00:00Z');
    const budgets = new TurnBudgets({ ledger, defaults: {}, levelsFor: () => [], prices: { 'gpt-4o-mini': { input: 100, output: 100 } }, clock: () => now, logger: createLogger({ level: 'silent' }) });
    const user = 7102;
    const turnId = randomUUID();
    const outcome = await fixture.runTurnWith(fixture.store, { budgets, clock: () => now })(await fixture.request(turnId, [fixture.dmFrom(user, 'count me', fixture.telegram.botId)]));
    expect(outcome.kind).toBe('completed');
    const rows = await fixture.database.db.execute(`SELECT input_tokens, output_tokens FROM runs WHERE id = '${turnId}'`);
    const [run] = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ input_tokens: number; output_tokens: number }>;
    const cost = ((Number(run!.input_tokens) + Number(run!.output_tokens)) * 100) / 1e6;
    // settled as the model's stream is closed, which the loop does not wait for
    const subject = { user: `telegram:${user}`, chat: `telegram:${fixture.telegram.botId}:${user}`, agent: 'main' };
    const spent = await waitFor(async () => {
      const today = await ledger.spentToday(subject, now);
      return today.user > 0 ? today : undefined;
    });
    expect(spent.user).toBeCloseTo(cost, 9);
    expect(spent.chat).toBeCloseTo(cost, 9);
    expect(cost).toBeGreaterThan(0);
  });
});
