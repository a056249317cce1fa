import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../src/budgets/index.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Issue 20, "every token counted": every request of both providers carries the output cap
 * (LLM_MAX_OUTPUT_TOKENS), the budget reservation holds that cap at the output price, and the call
 * settles on the tokens really used.
 */
let environment: E2eEnvironment;
const services: ServiceProcess[] = [];
const CAP = 1000;
/** Output only is priced: a reservation is exactly the cap at this price, a settlement exactly what was used. */
const OUTPUT_USD_PER_MTOK = 100;
const NANOS_PER_USD = 1e9;

beforeAll(async () => {
  environment = await createE2eEnvironment();
});

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await environment?.close();
});

async function start(overrides: Record<string, string>): Promise<ServiceProcess> {
  const service = await startServiceProcess(
    environment.env({
      LLM_MAX_OUTPUT_TOKENS: String(CAP),
      BUDGET_AGENT_DAILY_USD: '100',
      LLM_PRICES: JSON.stringify({ 'gpt-4o-mini': { input: 0, output: OUTPUT_USD_PER_MTOK }, 'claude-sonnet-4-6': { input: 0, output: OUTPUT_USD_PER_MTOK } }),
      ...overrides,
    }),
  );
  services.push(service);
  return service;
}

const agentBudget = async () => {
  const key = environment.keys.budgetDay(utcDay(Date.now())).agent('main');
  const [spent, reserved] = await environment.redis.hmget(key, 'spent', 'reserved');
  return { spent: Number(spent ?? 0), reserved: Number(reserved ?? 0) };
};
const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

describe('the output cap', () => {
  it('OpenAI: every request carries it, the reservation is the cap at the output price, the settlement what was used', async () => {
    const service = await start({});
    environment.openai.settings.latencyMs = 1_500;
    environment.openai.script.respondWith((_request, text) => ({ parts: [{ type: 'text', text: `Answer to ${text}` }], usage: { inputTokens: 50, outputTokens: 300 } }));
    const chatId = 9501;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'how long may the answer be?'));
    // while the model is still answering, its reservation is held
    const held = await waitFor(async () => {
      const budget = await agentBudget();
      return budget.reserved > 0 ? budget : undefined;
    }, { what: 'the reservation of the call in flight' });
    expect(held.reserved).toBe((CAP * OUTPUT_USD_PER_MTOK * NANOS_PER_USD) / 1e6);
    await waitFor(() => sentTo(chatId).length === 1, { what: 'the answer' });
    await waitFor(async () => (await agentBudget()).reserved === 0, { what: 'the call settled' });
    expect((await agentBudget()).spent).toBe((300 * OUTPUT_USD_PER_MTOK * NANOS_PER_USD) / 1e6);

    const [request] = environment.openai.modelCalls;
    // a compatible server (the double is one) gets both fields; api.openai.com only max_completion_tokens
    expect(request!.body.max_completion_tokens).toBe(CAP);
    expect(request!.body.max_tokens).toBe(CAP);
    environment.openai.settings.latencyMs = 0;
    await service.stop();
  });

  it('Anthropic: every request carries it as max_tokens', async () => {
    const service = await start({ LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test', LLM_MODEL: 'claude-sonnet-4-6' });
    const chatId = 9502;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'and here?'));
    await waitFor(() => sentTo(chatId).length === 1, { what: 'the answer' });
    expect(environment.anthropic.modelCalls.map((call) => call.body.max_tokens)).toEqual([CAP]);
  });
});
