import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatTotals } from '../../src/usage/index.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

beforeEach(async () => {
  environment = await createE2eEnvironment();
});

afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.stop()));
  await environment.close();
});

/** Output only is priced, so a call's reservation is exactly the 4096-token output cap at this price. */
const OUTPUT_USD_PER_MTOK = 100;
const RESERVATION_USD = (4096 * OUTPUT_USD_PER_MTOK) / 1_000_000;
/** Each answer reports 1000 output tokens: $0.10. */
const CALL_USD = (1000 * OUTPUT_USD_PER_MTOK) / 1_000_000;
const AGENT_LIMIT_USD = 0.5;
const USERS = Array.from({ length: 20 }, (_, index) => 5100 + index);

async function start(overrides: Record<string, string>) {
  const service = await startServiceProcess(
    environment.env({
      BUDGET_AGENT_DAILY_USD: String(AGENT_LIMIT_USD),
      LLM_PRICES: JSON.stringify({ 'gpt-4o-mini': { input: 0, output: OUTPUT_USD_PER_MTOK } }),
      ...overrides,
    }),
  );
  services.push(service);
  return service;
}

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
const isNotice = (text: unknown) => typeof text === 'string' && text.startsWith("Sorry, this assistant's daily usage limit has been reached.");

describe('daily budgets across processes', () => {
  it('20 concurrent turns on two workers overshoot the agent budget by at most one reservation; each chat is told once; /usage equals the stored runs', async () => {
    environment.openai.settings.latencyMs = 300;
    environment.openai.script.respondWith((_request, text) => ({ parts: [{ type: 'text', text: `Answer to ${text}` }], usage: { inputTokens: 200, outputTokens: 1000 } }));
    const gateway = await start({ ROLE: 'gateway' });
    // four turns at a time per worker: the twenty turns have to be shared by both
    const workers = await Promise.all([start({ ROLE: 'worker', WORKER_CONCURRENCY: '4' }), start({ ROLE: 'worker', WORKER_CONCURRENCY: '4' })]);

    await Promise.all(USERS.map((user) => postTelegramUpdate(gateway.url, environment.telegram.makeUpdate.privateText(user, `question from ${user}`))));
    await waitFor(async () => (await environment.sql`SELECT count(*)::int AS count FROM runs`)[0]!.count === USERS.length, { timeoutMs: 90_000, what: 'all 20 turns stored' });

    const runs = await environment.sql<Array<{ status: string; cost_usd: number; output_tokens: number }>>`SELECT status, cost_usd, output_tokens::int FROM runs`;
    const completed = runs.filter((run) => run.status === 'completed');
    const refused = runs.filter((run) => run.status === 'budget_exceeded');
    expect(completed.length + refused.length).toBe(USERS.length);
    expect(refused.length).toBeGreaterThan(0);
    for (const run of completed) expect(run.cost_usd).toBeCloseTo(CALL_USD, 9);
    for (const run of refused) expect(run).toMatchObject({ cost_usd: 0, output_tokens: 0 });
    const spent = completed.reduce((sum, run) => sum + run.cost_usd, 0);
    // the budget was used up, and concurrency went past it by no more than one call's reservation
    expect(spent).toBeGreaterThanOrEqual(AGENT_LIMIT_USD);
    expect(spent).toBeLessThanOrEqual(AGENT_LIMIT_USD + RESERVATION_USD + 1e-9);
    expect(environment.openai.modelCalls).toHaveLength(completed.length);

    // both workers ran turns, and their spend metrics add up to the stored cost
    const metricsOf = async (worker: ServiceProcess) => (await fetch(`${worker.url}/metrics`)).text();
    const sumOf = (text: string, name: string) =>
      [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((sum, match) => sum + Number(match[1]), 0);
    const texts = await Promise.all(workers.map(metricsOf));
    for (const text of texts) expect(sumOf(text, 'bot_turns_total')).toBeGreaterThan(0);
    expect(texts.reduce((sum, text) => sum + sumOf(text, 'bot_llm_spend_usd_total'), 0)).toBeCloseTo(spent, 9);
    expect(texts.reduce((sum, text) => sum + sumOf(text, 'bot_budget_refusals_total'), 0)).toBe(refused.length);

    // every chat got exactly one message: its answer, or (refused) the notice
    await waitFor(() => USERS.every((user) => sentTo(user).length === 1), { timeoutMs: 15_000, what: 'one message in every chat' });
    const told = USERS.filter((user) => isNotice(sentTo(user)[0]!.params.text));
    expect(told).toHaveLength(refused.length);
    expect(sentTo(told[0]!)[0]!.params.text).toMatch(/It resets at midnight UTC \(\d{4}-\d\d-\d\d 00:00 UTC\)\.$/);

    // a refused chat writing again is refused without a second notice
    await postTelegramUpdate(gateway.url, environment.telegram.makeUpdate.privateText(told[0]!, 'and again'));
    await waitFor(async () => (await environment.sql`SELECT count(*)::int AS count FROM runs`)[0]!.count === USERS.length + 1, { timeoutMs: 30_000, what: 'the turn stored' });
    const [latest] = await environment.sql`SELECT status FROM runs ORDER BY started_at DESC LIMIT 1`;
    expect(latest!.status).toBe('budget_exceeded');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sentTo(told[0]!)).toHaveLength(1);
    expect(environment.openai.modelCalls).toHaveLength(completed.length);

    // /usage of an answered user: the sums of its runs in PostgreSQL
    const answered = USERS.find((user) => !told.includes(user))!;
    await postTelegramUpdate(gateway.url, environment.telegram.makeUpdate.privateText(answered, '/usage'));
    const usage = await waitFor(() => sentTo(answered).find((call) => String(call.params.text).startsWith('Usage')), { what: 'the /usage answer' });
    const [sums] = await environment.sql<Array<{ input: string; output: string; cost: number; turns: number }>>`
      SELECT sum(r.input_tokens + r.cache_read_tokens + r.cache_write_tokens) AS input, sum(r.output_tokens) AS output,
             sum(r.cost_usd) AS cost, count(*)::int AS turns
      FROM runs r JOIN sessions s ON s.id = r.session_id
      WHERE s.chat_type = 'dm' AND s.user_id = ${String(answered)} AND r.started_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
    const totals = { inputTokens: Number(sums!.input), outputTokens: Number(sums!.output), costUsd: sums!.cost, turns: sums!.turns };
    expect(totals).toMatchObject({ outputTokens: 1000, turns: 1 });
    expect(String(usage.params.text)).toContain(formatTotals('Today', totals));
    expect(String(usage.params.text)).toContain(formatTotals('This month', totals));
    expect(String(usage.params.text)).toContain('Daily budget left: $0.0000 of $0.5000 for the assistant');
  }, 150_000);
});
