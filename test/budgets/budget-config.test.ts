import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectedCostUsd, mergeLimits } from '../../src/budgets/index.js';
import { limitChangesOf } from '../../src/gateway/console/budgets/budgets-section.js';
import { ChatSettingsResolver, loadConfig } from '../../src/config/index.js';
import { costOf, parsePriceOverrides, priceOf } from '../../src/llm/index.js';

const base = { OPENAI_API_KEY: 'sk-test' };

function errorOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}

function configIn(text: string, env: Record<string, string> = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'budget-config-'));
  writeFileSync(join(directory, 'bot.config.yaml'), text);
  return loadConfig({ ...base, ...env }, { cwd: directory });
}

describe('budget configuration', () => {
  it('reads BUDGET_*_DAILY_USD as the default limits; unset means no limit', () => {
    expect(loadConfig(base).budgets).toEqual({});
    expect(loadConfig({ ...base, BUDGET_USER_DAILY_USD: '0.5', BUDGET_CHAT_DAILY_USD: '2', BUDGET_AGENT_DAILY_USD: '0' }).budgets).toEqual({
      userDailyUsd: 0.5,
      chatDailyUsd: 2,
      agentDailyUsd: 0,
    });
    expect(errorOf(() => loadConfig({ ...base, BUDGET_CHAT_DAILY_USD: '-1' }))).toMatch(/^BUDGET_CHAT_DAILY_USD: .*greater or equal to 0/);
    expect(errorOf(() => loadConfig({ ...base, BUDGET_USER_DAILY_USD: 'lots' }))).toMatch(/^BUDGET_USER_DAILY_USD: /);
  });

  it('reads budgets on agents, channels, accounts and groups; a chat merges its levels field by field', () => {
    const config = configIn(`
agents:
  - id: main
    budgets: { userDailyUsd: 1, agentDailyUsd: 20 }
channels:
  telegram:
    budgets: { chatDailyUsd: 5 }
    accounts:
      - { name: alpha, token: "111:a", budgets: { userDailyUsd: 0.5 } }
    groups:
      "-100":
        budgets: { chatDailyUsd: 0.25 }
`);
    expect(config.agents[0]!.budgets).toEqual({ userDailyUsd: 1, agentDailyUsd: 20 });
    const chats = new ChatSettingsResolver(config);
    chats.registerAccount('telegram', '111', 'alpha');
    expect(chats.resolve({ channel: 'telegram', accountId: '111', chatType: 'group', chatId: '-100' }).budgets).toEqual({ chatDailyUsd: 0.25, userDailyUsd: 0.5 });
    expect(chats.resolve({ channel: 'telegram', accountId: '111', chatType: 'dm', chatId: '7' }).budgets).toEqual({ chatDailyUsd: 5, userDailyUsd: 0.5 });
    expect(chats.resolve({ channel: 'slack', accountId: 'T', chatType: 'dm', chatId: 'U' }).budgets).toEqual({});
    // the order a turn applies them in: environment < console < agent < chat levels
    expect(mergeLimits({ userDailyUsd: 3, chatDailyUsd: 9 }, { chatDailyUsd: 8 }, config.agents[0]!.budgets, { userDailyUsd: 0.5 })).toEqual({
      userDailyUsd: 0.5,
      chatDailyUsd: 8,
      agentDailyUsd: 20,
    });
  });

  it('rejects a bad budget in the file with the path of the field', () => {
    expect(errorOf(() => configIn('agents:\n  - id: main\n    budgets: { userDailyUsd: -2 }\n'))).toContain('/agents/0/budgets/userDailyUsd');
    expect(errorOf(() => configIn('agents:\n  - id: main\n    budgets: { dailyUsd: 2 }\n'))).toContain('/agents/0/budgets');
  });
});

describe('LLM_PRICES', () => {
  it('adds and overrides prices, cache prices included, and an unknown model stays unpriced', () => {
    const config = loadConfig({ ...base, LLM_PRICES: JSON.stringify({ 'my-local-model': { input: 1, output: 2 }, 'gpt-4o-mini': { input: 10, output: 20, cacheRead: 1, cacheWrite: 15 } }) });
    const prices = config.llmPrices;
    expect(priceOf('my-local-model', prices)).toEqual({ input: 1, output: 2 });
    expect(priceOf('gpt-4o-mini-2024-07-18', prices)).toEqual({ input: 10, output: 20, cacheRead: 1, cacheWrite: 15 });
    expect(priceOf('gpt-4o', prices)).toEqual({ input: 2.5, output: 10, cacheRead: 1.25 });
    expect(priceOf('nobody-knows', prices)).toBeUndefined();
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 };
    expect(costOf('gpt-4o-mini', usage, prices)).toBe(10 + 20 + 1 + 15);
    // without cache prices the input price applies to cached tokens
    expect(costOf('my-local-model', usage, prices)).toBe(1 + 2 + 1 + 1);
  });

  it('refuses JSON that is not a price table, saying what is wrong', () => {
    expect(errorOf(() => loadConfig({ ...base, LLM_PRICES: '{oops' }))).toMatch(/^LLM_PRICES: not JSON/);
    expect(errorOf(() => loadConfig({ ...base, LLM_PRICES: '{"m": {"input": 1}}' }))).toMatch(/^LLM_PRICES: \/m.*expected \{ "<model>"/);
    expect(parsePriceOverrides('{"m": {"input": -1, "output": 1}}')).toMatch(/^\/m\/input/);
  });
});

describe('the expected cost of a call', () => {
  const request = { system: 'You are helpful.', messages: [{ role: 'user' as const, parts: [{ type: 'text' as const, text: 'Hello there, how are you?' }] }], maxTokens: 4096 };

  it('is the whole prompt at the input (or higher cache-write) price plus the output cap at the output price', () => {
    const outputOnly = expectedCostUsd({ input: 0, output: 100 }, request);
    expect(outputOnly).toBeCloseTo((4096 * 100) / 1e6, 12);
    expect(expectedCostUsd({ input: 0, output: 100 }, { ...request, maxTokens: 10 })).toBeCloseTo((10 * 100) / 1e6, 12);
    const inputOnly = expectedCostUsd({ input: 1_000_000, output: 0 }, request);
    // a handful of tokens, with the margin
    expect(inputOnly).toBeGreaterThan(10);
    expect(inputOnly).toBeLessThan(40);
    expect(expectedCostUsd({ input: 1_000_000, output: 0, cacheWrite: 2_000_000 }, request)).toBeCloseTo(inputOnly * 2, 9);
    const withTools = expectedCostUsd({ input: 1_000_000, output: 0 }, { ...request, tools: [{ name: 'read_file', description: 'Reads a file from the workspace', parameters: { type: 'object' } }] });
    expect(withTools).toBeGreaterThan(inputOnly);
  });
});

describe('the console form’s limits', () => {
  it('sets numbers, clears empty fields, and refuses anything else', () => {
    expect(limitChangesOf({ userDailyUsd: '1.5', chatDailyUsd: '', agentDailyUsd: ' 0 ' })).toEqual({ userDailyUsd: 1.5, chatDailyUsd: null, agentDailyUsd: 0 });
    expect(() => limitChangesOf({ userDailyUsd: '-1' })).toThrow(/userDailyUsd: a number of US dollars/);
    expect(() => limitChangesOf({ userDailyUsd: ['1', '2'] })).toThrow(/one value expected/);
    expect(() => limitChangesOf({ _csrf: 'x' })).toThrow(/is required/);
  });
});
