import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_FLUSH_SYSTEM } from '../../src/agent/index.js';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Issue 20: compaction (the memory flush, then the summary) used to hold a turn for up to three minutes while the
 * user saw nothing, and /stop could not cancel it. Now COMPACTION_TIMEOUT_MS bounds both together, the typing
 * indicator stays on meanwhile, the turn falls back to trimming, and /stop cancels a running summary.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;
const BOUND_MS = 8_000;
/** Far beyond the bound: the double answers compaction calls only when the service waits this long. */
const SLOW_MS = 120_000;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ COMPACTION_TIMEOUT_MS: String(BOUND_MS), LLM_MAX_RETRIES: '0' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const systemOf = (request: RecordedRequest) => String(request.body.messages?.[0]?.role === 'system' ? request.body.messages[0].content : '');
const isSummary = (request: RecordedRequest) => systemOf(request).includes('You summarize conversations');
const isFlush = (request: RecordedRequest) => systemOf(request) === MEMORY_FLUSH_SYSTEM;
const answersTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

async function threeTurns(chatId: number) {
  for (const [index, text] of ['first fact', 'second fact', 'third fact'].entries()) {
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, text));
    await waitFor(() => answersTo(chatId).length > index, { what: `answer ${index + 1}` });
  }
}

describe('compaction inside a turn', () => {
  it('a memory flush and summary slower than COMPACTION_TIMEOUT_MS: the turn answers after about the bound, trimmed instead, typing meanwhile', async () => {
    const chatId = 9401;
    await threeTurns(chatId);
    environment.openai.script.respondWith((request, text) =>
      isSummary(request) || isFlush(request) ? { latencyMs: SLOW_MS, parts: [{ type: 'text', text: 'too late' }] } : `You said: ${text}`,
    );
    // the provider refuses the next request as too long: the turn compacts mid-turn before trying again
    environment.openai.script.push(reply.contextTooLong());
    const sentAt = Date.now();
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'a question after the refusal'));
    const answer = await waitFor(() => answersTo(chatId)[3], { what: 'the answer', timeoutMs: BOUND_MS + 15_000 });
    const elapsed = answer.at - sentAt;
    expect(answer.params.text).toBe('You said: a question after the refusal');
    // the flush and the summary together took the bound, not a minute each
    expect(elapsed).toBeGreaterThanOrEqual(BOUND_MS - 500);
    expect(elapsed).toBeLessThan(BOUND_MS + 5_000);
    const compactionCalls = environment.openai.modelCalls.filter((request) => request.receivedAt >= sentAt && (isSummary(request) || isFlush(request)));
    expect(compactionCalls.map((request) => (isFlush(request) ? 'flush' : 'summary'))).toEqual(['flush', 'summary']);
    await waitFor(() => compactionCalls.every((request) => request.aborted), { what: 'both compaction requests given up' });
    expect(await environment.sql`SELECT 1 FROM summaries`).toHaveLength(0);
    // Telegram's typing action lasts ~5 s: it was sent again while the turn waited
    const typing = environment.telegram.callsOf('sendChatAction').filter((call) => call.params.chat_id === chatId && call.at >= sentAt && call.at <= answer.at);
    expect(typing.length).toBeGreaterThanOrEqual(2);
    expect(typing.at(-1)!.at - typing[0]!.at).toBeGreaterThanOrEqual(3_000);
  }, 60_000);

  it('/stop during a summary ends the turn at once and cancels the summary request', async () => {
    const chatId = 9402;
    environment.openai.script.reset();
    await threeTurns(chatId);
    environment.openai.script.respondWith((request, text) => {
      if (isFlush(request)) return 'NO_REPLY';
      if (isSummary(request)) return { latencyMs: SLOW_MS, parts: [{ type: 'text', text: 'too late' }] };
      return `You said: ${text}`;
    });
    environment.openai.script.push(reply.contextTooLong());
    const sentAt = Date.now();
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'this one gets stopped'));
    const summary = await waitFor(() => environment.openai.modelCalls.find((request) => isSummary(request) && request.receivedAt >= sentAt), {
      what: 'the summary request',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stoppedAt = Date.now();
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.command(chatId, chatId, 'stop'));
    const [run] = await waitFor(async () => {
      const rows = await environment.sql`
        SELECT r.status, r.finished_at FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`} AND r.status <> 'completed'`;
      return rows.length > 0 ? rows : undefined;
    }, { what: 'the stopped turn stored', timeoutMs: 10_000 });
    expect(run!.status).toBe('cancelled');
    await waitFor(() => summary.aborted, { what: 'the summary request cancelled', timeoutMs: 3_000 });
    // promptly: well before the compaction bound would have ended it
    expect(summary.endedAt! - stoppedAt).toBeLessThan(2_500);
    expect(answersTo(chatId).map((call) => call.params.text)).toEqual(['You said: first fact', 'You said: second fact', 'You said: third fact', 'Stopped.']);
    expect(await environment.sql`SELECT 1 FROM summaries`).toHaveLength(0);
  }, 60_000);
});
