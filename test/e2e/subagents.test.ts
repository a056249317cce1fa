import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../doubles/http-double.js';
import { utcDay } from '../../src/budgets/index.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * CONTRACT §18 end to end through Telegram and the OpenAI double: the parent model calls `spawn_agent`, the child's
 * requests are told apart by their minimal prompt. What the child sees and may use, where its answer goes, how its
 * calls are counted, and that /stop and a crash treat it like any other part of the turn.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;
let configDirectory: string;
const PRICE = { input: 1000, output: 1000 };
const AUTH = { authorization: `Basic ${btoa('ops:pw')}` };
const FORBIDDEN = ['bash', 'write_file', 'send_file', 'schedule_task', 'cancel_task', 'remember', 'forget', 'spawn_agent'];

const serviceEnv = () =>
  environment.env({
    CONFIG_FILE: join(configDirectory, 'bot.config.yaml'),
    LLM_PRICES: JSON.stringify({ 'gpt-4o-mini': PRICE }),
    BUDGET_USER_DAILY_USD: '1000',
    ADMIN_USER: 'ops',
    ADMIN_PASSWORD: 'pw',
    LLM_MAX_RETRIES: '0',
    TURN_LEASE_MS: '3000',
  });

beforeAll(async () => {
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'subagents-e2e-'));
  // bash on: the parent has it, the child must not
  writeFileSync(join(configDirectory, 'bot.config.yaml'), 'agents:\n  - id: main\n    tools: { bash: { enabled: true } }\n');
  service = await startServiceProcess(serviceEnv());
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
});

const systemOf = (request: RecordedRequest) => String(request.body.messages?.[0]?.role === 'system' ? request.body.messages[0].content : '');
const isChild = (request: RecordedRequest) => systemOf(request).includes('You are a sub-agent');
const hasToolResult = (request: RecordedRequest) => request.body.messages.some((message: { role: string }) => message.role === 'tool');
const toolNames = (request: RecordedRequest) => (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
const mentioning = (marker: string) => environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages).includes(marker));
const childCalls = (marker: string) => mentioning(marker).filter(isChild);
const parentCalls = (marker: string) => mentioning(marker).filter((call) => !isChild(call));
const answersTo = (chatId: number) =>
  environment.telegram
    .callsOf('sendMessage')
    .filter((call) => call.params.chat_id === chatId && !call.failed)
    .map((call) => String(call.params.text));
const spawnFor = (chatId: number) => reply.toolCall('spawn_agent', { prompt: `Look up the answer for chat ${chatId} in the notes.` });

async function runOf(chatId: number) {
  return waitFor(
    async () => {
      const [run] = await environment.sql`SELECT r.id, r.status, r.input_tokens::int AS input_tokens, r.cost_usd FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`;
      return run;
    },
    { what: `the run of chat ${chatId}`, timeoutMs: 40_000 },
  );
}

describe('spawn_agent', () => {
  it('the child\u2019s answer reaches the parent; it saw only the prompt and no forbidden tool; its spans and cost roll up into the run, the session, /usage and the budget', async () => {
    const chatId = 8901;
    environment.openai.script.respondWith((request) => {
      if (isChild(request)) return { parts: [{ type: 'text', text: 'The notes say 42.' }], usage: { inputTokens: 700, outputTokens: 10 } };
      if (!hasToolResult(request)) return { ...spawnFor(chatId), usage: { inputTokens: 500, outputTokens: 20 } };
      const result = JSON.stringify(request.body.messages.at(-1));
      return { parts: [{ type: 'text', text: result.includes('The notes say 42.') ? 'The sub-agent found 42.' : 'No answer came back.' }], usage: { inputTokens: 600, outputTokens: 10 } };
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, `what is the answer? (chat ${chatId})`));
    await waitFor(() => answersTo(chatId).length > 0, { what: 'the answer', timeoutMs: 30_000 });
    const run = await runOf(chatId);
    expect(answersTo(chatId)).toEqual(['The sub-agent found 42.']);

    // what the child saw: its minimal prompt and the task alone, with read-only tools
    const [child, ...moreChildren] = childCalls(`chat ${chatId}`);
    expect(moreChildren).toHaveLength(0);
    expect(child!.body.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user']);
    expect(child!.body.messages[1].content).toBe(`Look up the answer for chat ${chatId} in the notes.`);
    expect(JSON.stringify(child!.body.messages)).not.toContain('what is the answer?');
    expect(systemOf(child!)).not.toMatch(/## Memory|## Messaging|## Chat|NO_REPLY/);
    const offered = toolNames(child!);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'list_directory', 'recall', 'list_tasks']));
    for (const name of FORBIDDEN) expect(offered).not.toContain(name);
    const [parentFirst] = parentCalls(`chat ${chatId}`);
    expect(toolNames(parentFirst!)).toEqual(expect.arrayContaining(['bash', 'write_file', 'spawn_agent', 'remember']));

    // the child's calls are spans of the parent's run, under the spawn_agent call, and counted there
    const spans = await environment.sql`SELECT kind, name, tool_call_id, parent_tool_call_id, cost_usd, input_tokens FROM run_spans WHERE run_id = ${run.id} ORDER BY position`;
    const spawn = spans.find((span) => span.name === 'spawn_agent')!;
    const nested = spans.filter((span) => span.parent_tool_call_id !== null);
    expect(nested.map((span) => [span.kind, span.name, span.parent_tool_call_id])).toEqual([['llm', 'openai:gpt-4o-mini', spawn.tool_call_id]]);
    const childCost = ((700 * PRICE.input + 10 * PRICE.output) / 1e6);
    expect(nested[0]!.cost_usd).toBeCloseTo(childCost, 9);
    const llmCost = spans.filter((span) => span.kind === 'llm').reduce((sum, span) => sum + Number(span.cost_usd), 0);
    expect(run.cost_usd).toBeCloseTo(llmCost, 9);
    expect(run.input_tokens).toBe(500 + 700 + 600);
    const [session] = await environment.sql`SELECT s.cost_usd, s.input_tokens::int AS input_tokens, s.key FROM sessions s WHERE s.key LIKE ${`%:dm:${chatId}`}`;
    expect(session!.cost_usd).toBeCloseTo(run.cost_usd, 9);
    expect(session!.input_tokens).toBe(1800);

    // the console nests the child's spans under the call
    const transcript = (await (await fetch(`${service.url}/admin/api/sessions/${encodeURIComponent(String(session!.key))}/transcript`, { headers: AUTH })).json()) as any;
    const apiSpans = transcript.runs[0].spans as Array<{ name: string; toolCallId?: string; parentToolCallId?: string }>;
    expect(apiSpans.find((span) => span.name === 'spawn_agent')!.toolCallId).toBe(spawn.tool_call_id);
    expect(apiSpans.filter((span) => span.parentToolCallId === spawn.tool_call_id)).toHaveLength(1);
    const page = await (await fetch(`${service.url}/admin/sessions/${encodeURIComponent(String(session!.key))}`, { headers: AUTH })).text();
    expect(page).toMatch(/<tr class="nested-span">[\s\S]*?↳ <\/span><code>openai:gpt-4o-mini<\/code> <span class="badge">sub-agent<\/span>/);

    // /usage: today's tokens and cost from the runs, the budget left from the ledger, both with the child's call
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, '/usage'));
    await waitFor(() => answersTo(chatId).some((text) => text.startsWith('Usage')), { what: 'the /usage answer' });
    const usage = answersTo(chatId).find((text) => text.startsWith('Usage'))!;
    expect(usage).toContain(`Today: 1,800 tokens in, 40 out, $${run.cost_usd.toFixed(4)} (1 turn)`);
    expect(usage).toContain(`Daily budget left: $${(1000 - run.cost_usd).toFixed(4)} of $1000.0000 for you`);
  });

  it('/stop during a slow child cancels the child\u2019s model request with the turn', async () => {
    const chatId = 8902;
    environment.openai.script.respondWith((request) => {
      if (isChild(request)) return reply.hang();
      return hasToolResult(request) ? 'should never be asked' : spawnFor(chatId);
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, `take your time (chat ${chatId})`));
    const child = await waitFor(() => childCalls(`chat ${chatId}`).find((call) => call.endedAt === undefined), { what: 'the child\u2019s request in flight', timeoutMs: 20_000 });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, '/stop'));
    await waitFor(() => child.endedAt !== undefined, { what: 'the child\u2019s request to end', timeoutMs: 10_000 });
    expect(child.aborted).toBe(true);
    const run = await runOf(chatId);
    expect(run.status).toBe('cancelled');
    expect(parentCalls(`chat ${chatId}`).filter(hasToolResult)).toHaveLength(0);
    expect(answersTo(chatId).filter((text) => text === 'should never be asked')).toHaveLength(0);
  });

  it('a crash (SIGKILL) after the child finished: the restarted turn goes on from the child\u2019s saved answer, which is not asked for again', async () => {
    const chatId = 8903;
    let restarted = false;
    environment.openai.script.respondWith((request) => {
      if (isChild(request)) return 'The child looked it up: 7.';
      if (!hasToolResult(request)) return spawnFor(chatId);
      return restarted ? 'After the restart: the child said 7.' : reply.hang();
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, `crash after the child (chat ${chatId})`));
    await waitFor(() => parentCalls(`chat ${chatId}`).some((call) => hasToolResult(call) && call.endedAt === undefined), {
      what: 'the parent\u2019s call after the child to hang',
      timeoutMs: 20_000,
    });
    expect(childCalls(`chat ${chatId}`)).toHaveLength(1);
    await service.kill('SIGKILL');
    restarted = true;
    service = await startServiceProcess(serviceEnv());
    await waitFor(() => answersTo(chatId).length > 0, { what: 'the answer after the restart', timeoutMs: 40_000 });
    expect(answersTo(chatId)).toEqual(['After the restart: the child said 7.']);
    expect(childCalls(`chat ${chatId}`)).toHaveLength(1);
    const run = await runOf(chatId);
    expect(run.status).toBe('completed');
    // the child's call, saved with its result, is still a span of the run
    const nested = await environment.sql`SELECT name FROM run_spans WHERE run_id = ${run.id} AND parent_tool_call_id IS NOT NULL`;
    expect(nested).toHaveLength(1);
  });

  it('a crash (SIGKILL) while the child runs, twice: the child runs again on each takeover, and every call it made is in the run, /usage and the budget, once', async () => {
    const chatId = 8904;
    let crashes = 0;
    const childSaw = (request: RecordedRequest) => hasToolResult(request);
    environment.openai.script.respondWith((request) => {
      if (isChild(request)) {
        // each attempt of the child: a first call that lists the files, then a second that hangs until the second restart
        if (!childSaw(request)) return { ...reply.toolCall('list_directory', {}), usage: { inputTokens: 700, outputTokens: 10 } };
        return crashes < 2 ? reply.hang() : { parts: [{ type: 'text', text: 'The notes say 9.' }], usage: { inputTokens: 800, outputTokens: 10 } };
      }
      if (!hasToolResult(request)) return { ...spawnFor(chatId), usage: { inputTokens: 500, outputTokens: 20 } };
      return { parts: [{ type: 'text', text: 'The sub-agent found 9.' }], usage: { inputTokens: 600, outputTokens: 10 } };
    });
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, `crash during the child (chat ${chatId})`));
    for (const attempt of [1, 2]) {
      await waitFor(() => childCalls(`chat ${chatId}`).filter(childSaw).length === attempt || undefined, {
        what: `the child\u2019s second call to hang (attempt ${attempt})`,
        timeoutMs: 40_000,
      });
      await service.kill('SIGKILL');
      crashes++;
      service = await startServiceProcess(serviceEnv());
    }
    await waitFor(() => answersTo(chatId).length > 0, { what: 'the answer after the second restart', timeoutMs: 40_000 });
    expect(answersTo(chatId)).toEqual(['The sub-agent found 9.']);
    // three attempts of the child: three first calls answered, two second calls cut short, one answered
    expect(childCalls(`chat ${chatId}`).filter((call) => !childSaw(call))).toHaveLength(3);

    const run = await runOf(chatId);
    expect(run.status).toBe('completed');
    const spans = await environment.sql`SELECT kind, input_tokens, cost_usd, parent_tool_call_id FROM run_spans WHERE run_id = ${run.id} ORDER BY position`;
    const childLlm = spans.filter((span) => span.kind === 'llm' && span.parent_tool_call_id !== null && span.input_tokens !== null);
    expect(childLlm.map((span) => span.input_tokens)).toEqual([700, 700, 700, 800]);
    const inputTokens = 500 + 3 * 700 + 800 + 600;
    const costUsd = (inputTokens * PRICE.input + (20 + 3 * 10 + 10 + 10) * PRICE.output) / 1e6;
    expect(run.input_tokens).toBe(inputTokens);
    expect(run.cost_usd).toBeCloseTo(costUsd, 9);

    // the budget charged every one of those calls: what the run shows is what was charged
    const spent = Number(await environment.redis.hget(environment.keys.budgetDay(utcDay(Date.now())).user(`telegram:${chatId}`), 'spent'));
    expect(spent).toBeGreaterThanOrEqual(Math.round(costUsd * 1e9) - 1);
    expect(spent).toBeLessThanOrEqual(Math.round(costUsd * 1e9) + 6);

    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, '/usage'));
    await waitFor(() => answersTo(chatId).some((text) => text.startsWith('Usage')), { what: 'the /usage answer' });
    const usage = answersTo(chatId).find((text) => text.startsWith('Usage'))!;
    expect(usage).toContain(`Today: 4,000 tokens in, 70 out, $${costUsd.toFixed(4)} (1 turn)`);
    // (not "Daily budget left": the two calls in flight at the crashes still hold their reservations, a separate matter)
  }, 180_000);
});

