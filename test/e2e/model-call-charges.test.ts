import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_FLUSH_SYSTEM } from '../../src/agent/index.js';
import { utcDay } from '../../src/budgets/index.js';
import { formatTotals } from '../../src/usage/index.js';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply, type ModelReply } from '../doubles/model-script.js';
import { DEFAULT_TRANSCRIPT, TRANSCRIPTION_INPUT_TOKENS } from '../doubles/openai-double.js';
import { oggOpusBytes } from '../support/media-fixtures.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Issue 20, "every token counted": summaries, memory flushes and voice transcriptions are model calls like the
 * loop's. Their tokens and cost are spans of the turn that caused them (a background summary after a turn joins
 * that turn's run), in the run's and the session's totals, in /usage and the console, and on every budget.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;
const PRICE = { input: 1, output: 100 };
const AUTH = { authorization: `Basic ${btoa('ops:pw')}` };

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(
    environment.env({
      LLM_PRICES: JSON.stringify({ 'gpt-4o-mini': PRICE }),
      // limits on: every call reserves and settles against the ledger
      BUDGET_USER_DAILY_USD: '100',
      BUDGET_AGENT_DAILY_USD: '100',
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 'pw',
      LLM_MAX_RETRIES: '0',
    }),
  );
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const systemOf = (request: RecordedRequest) => String(request.body.messages?.[0]?.role === 'system' ? request.body.messages[0].content : '');
const isSummary = (request: RecordedRequest) => systemOf(request).includes('You summarize conversations');
const isFlush = (request: RecordedRequest) => systemOf(request) === MEMORY_FLUSH_SYSTEM;
const costOf = (input: number, output: number) => (input * PRICE.input + output * PRICE.output) / 1e6;
const answersTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

/** Every call reports fixed usage, so each span's tokens and cost are known: turns 10/10, the flush 300/50, the summary 500/200. */
function scriptedUsage(request: RecordedRequest, text: string): ModelReply {
  if (isFlush(request)) return { parts: [{ type: 'text', text: '- The user likes gardening.' }], usage: { inputTokens: 300, outputTokens: 50 } };
  if (isSummary(request)) return { parts: [{ type: 'text', text: 'The user talked about the garden.' }], usage: { inputTokens: 500, outputTokens: 200 } };
  return { parts: [{ type: 'text', text: `You said: ${text}` }], usage: { inputTokens: 10, outputTokens: 10 } };
}

async function say(chatId: number, text: string) {
  const before = answersTo(chatId).length;
  await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, text));
  await waitFor(() => answersTo(chatId).length > before, { what: `the answer to "${text.slice(0, 40)}"` });
}

async function runsOf(chatId: number) {
  return environment.sql<Array<{ id: string; input_tokens: number; output_tokens: number; cost_usd: number }>>`
    SELECT r.id, r.input_tokens::int, r.output_tokens::int, r.cost_usd FROM runs r JOIN sessions s ON s.id = r.session_id
     WHERE s.key LIKE ${`%:dm:${chatId}`} ORDER BY r.started_at`;
}

async function spansOf(runId: string) {
  return environment.sql<Array<{ kind: string; name: string; iteration: number | null; input_tokens: number | null; output_tokens: number | null; cost_usd: number | null; output_preview: string | null; is_error: boolean }>>`
    SELECT kind, name, iteration, input_tokens, output_tokens, cost_usd, output_preview, is_error FROM run_spans WHERE run_id = ${runId} ORDER BY position`;
}

/** The user's settled spend today in the budget ledger, in nano-dollars. */
async function userSpentNanos(chatId: number): Promise<number> {
  const key = environment.keys.budgetDay(utcDay(Date.now())).user(`telegram:${chatId}`);
  return Number((await environment.redis.hget(key, 'spent')) ?? 0);
}

/** The ledger rounds each call up to a whole nano-dollar. */
function expectCharged(spentNanos: number, costUsd: number, calls: number) {
  expect(spentNanos).toBeGreaterThanOrEqual(Math.round(costUsd * 1e9) - 1);
  expect(spentNanos).toBeLessThanOrEqual(Math.round(costUsd * 1e9) + calls);
}

async function usageAnswer(chatId: number): Promise<string> {
  const before = answersTo(chatId).length;
  await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, '/usage'));
  const answer = await waitFor(() => answersTo(chatId)[before], { what: 'the /usage answer' });
  return String(answer.params.text);
}

function totalsOf(runs: Awaited<ReturnType<typeof runsOf>>) {
  return {
    inputTokens: runs.reduce((sum, run) => sum + run.input_tokens, 0),
    outputTokens: runs.reduce((sum, run) => sum + run.output_tokens, 0),
    costUsd: runs.reduce((sum, run) => sum + run.cost_usd, 0),
    turns: runs.length,
  };
}

describe('model calls outside the agent loop are charged', () => {
  it('a mid-turn summary and its memory flush: spans of the turn with tokens and cost, in its totals, /usage, the console and the budget', async () => {
    const chatId = 9601;
    environment.openai.script.respondWith(scriptedUsage);
    for (const text of ['I grow tomatoes', 'and basil', 'and mint']) await say(chatId, text);
    // refused as too long: the turn summarizes mid-turn (flush, then summary) and tries again
    environment.openai.script.push(reply.contextTooLong());
    await say(chatId, 'what do I grow?');
    expect(environment.openai.modelCalls.filter(isFlush)).toHaveLength(1);
    expect(environment.openai.modelCalls.filter(isSummary)).toHaveLength(1);

    const runs = await waitFor(async () => {
      const stored = await runsOf(chatId);
      return stored.length === 4 ? stored : undefined;
    }, { what: 'four runs' });
    const turn = runs[3]!;
    const spans = await spansOf(turn.id);
    expect(spans.map((span) => [span.kind, span.iteration, span.output_preview, span.input_tokens, span.output_tokens, span.is_error])).toEqual([
      ['llm', 1, null, null, null, true], // refused as too long
      ['llm', 0, 'memory flush', 300, 50, false],
      ['llm', 0, 'summary', 500, 200, false],
      ['llm', 1, null, 10, 10, false],
    ]);
    expect(spans.every((span) => span.name === 'openai:gpt-4o-mini')).toBe(true);
    expect(spans[1]!.cost_usd).toBeCloseTo(costOf(300, 50), 12);
    expect(spans[2]!.cost_usd).toBeCloseTo(costOf(500, 200), 12);
    expect(turn).toMatchObject({ input_tokens: 810, output_tokens: 260 });
    expect(turn.cost_usd).toBeCloseTo(costOf(810, 260), 12);

    // the budget: every call of the chat, compaction included
    const totals = totalsOf(runs);
    expect(totals.outputTokens).toBe(3 * 10 + 260);
    expectCharged(await userSpentNanos(chatId), totals.costUsd, 7);
    // /usage sums the stored runs, compaction included
    const usage = await usageAnswer(chatId);
    expect(usage).toContain(formatTotals('Today', totals));

    // the console's transcript shows the calls as spans of the turn, with their tokens
    const [session] = await environment.sql`SELECT key FROM sessions WHERE key LIKE ${`%:dm:${chatId}`}`;
    const transcript = (await (await fetch(`${service.url}/admin/api/sessions/${encodeURIComponent(String(session!.key))}/transcript`, { headers: AUTH })).json()) as any;
    const shown = transcript.runs.find((run: { id: string }) => run.id === turn.id);
    expect(shown.spans.filter((span: { inputTokens?: number }) => span.inputTokens === 300 || span.inputTokens === 500)).toHaveLength(2);
    expect(shown.costUsd).toBeCloseTo(turn.cost_usd, 12);
    // and the usage API counts them
    const today = new Date().toISOString().slice(0, 10);
    const byDay = (await (await fetch(`${service.url}/admin/api/usage?from=${today}&to=${today}`, { headers: AUTH })).json()) as any;
    const [allRuns] = await environment.sql`SELECT sum(output_tokens)::int AS output FROM runs`;
    expect(byDay.days.reduce((sum: number, day: { outputTokens: number }) => sum + day.outputTokens, 0)).toBe(allRuns!.output);
  }, 60_000);

  it('a background summary after a turn: its calls join that turn run, its totals and the budget', async () => {
    const chatId = 9602;
    environment.openai.script.reset().respondWith(scriptedUsage);
    // more than 50 stored messages make a summary due after the turn that passes the mark
    for (let index = 1; index <= 26; index++) await say(chatId, `note ${index}`);
    await waitFor(async () => (await environment.sql`SELECT 1 FROM summaries s JOIN sessions se ON se.id = s.session_id WHERE se.key LIKE ${`%:dm:${chatId}`}`).length === 1, {
      what: 'the background summary',
    });
    const runs = await waitFor(async () => {
      const stored = await runsOf(chatId);
      return stored.length === 26 && stored[25]!.output_tokens > 10 ? stored : undefined;
    }, { what: 'the summary added to the last run' });
    expect(runs.slice(0, 25).every((run) => run.output_tokens === 10)).toBe(true);
    const caused = runs[25]!;
    expect(caused).toMatchObject({ input_tokens: 810, output_tokens: 260 });
    expect(caused.cost_usd).toBeCloseTo(costOf(810, 260), 12);
    const spans = await spansOf(caused.id);
    expect(spans.map((span) => [span.iteration, span.output_preview, span.input_tokens, span.output_tokens])).toEqual([
      [1, null, 10, 10],
      [0, 'memory flush', 300, 50],
      [0, 'summary', 500, 200],
    ]);
    const [session] = await environment.sql`SELECT output_tokens::int, cost_usd FROM sessions WHERE key LIKE ${`%:dm:${chatId}`}`;
    expect(session!.output_tokens).toBe(26 * 10 + 250);
    expectCharged(await userSpentNanos(chatId), totalsOf(runs).costUsd, 28);
  }, 90_000);

  it('a voice note: its transcription is a span of the turn with tokens and cost, in its totals and the budget', async () => {
    const chatId = 9603;
    environment.openai.script.reset().respondWith(scriptedUsage);
    const bytes = oggOpusBytes();
    const fileId = environment.telegram.addFile(bytes, 'oga');
    await postTelegramUpdate(
      service.url,
      environment.telegram.makeUpdate.privateText(chatId, '', { text: undefined, voice: { file_id: fileId, file_unique_id: 'v9603', duration: 2, mime_type: 'audio/ogg', file_size: bytes.length } }),
    );
    await waitFor(() => answersTo(chatId).length === 1, { what: 'the answer to the voice note' });
    const [run] = await waitFor(async () => {
      const stored = await runsOf(chatId);
      return stored.length === 1 ? stored : undefined;
    }, { what: 'the run' });
    const outputTokens = Math.ceil(DEFAULT_TRANSCRIPT.length / 4);
    // gpt-4o-mini-transcribe: $3 per million audio tokens in, $5 per million text tokens out
    const transcriptionUsd = (TRANSCRIPTION_INPUT_TOKENS * 3 + outputTokens * 5) / 1e6;
    const transcription = (await spansOf(run!.id)).find((span) => span.name === 'transcribe')!;
    expect(transcription).toMatchObject({ kind: 'media', input_tokens: TRANSCRIPTION_INPUT_TOKENS, output_tokens: outputTokens });
    expect(transcription.cost_usd).toBeCloseTo(transcriptionUsd, 12);
    expect(run).toMatchObject({ input_tokens: 10 + TRANSCRIPTION_INPUT_TOKENS, output_tokens: 10 + outputTokens });
    expect(run!.cost_usd).toBeCloseTo(costOf(10, 10) + transcriptionUsd, 12);
    expectCharged(await userSpentNanos(chatId), run!.cost_usd, 2);
  }, 60_000);
});
