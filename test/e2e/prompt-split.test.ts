import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * "Where the prompt goes": each turn's model call records how its input splits into system prompt, tool schemas,
 * memories, summary, history, the new message and the turn so far; the console shows it per call and per session.
 * The OpenAI double counts every prompt with the real o200k tokenizer here, so the split's sum can be held against
 * the provider's count.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;
const AUTH = { authorization: `Basic ${btoa('ops:pw')}` };
const PARTS = ['system', 'tools', 'memories', 'summary', 'history', 'message', 'turn'] as const;
const isSummary = (messages: unknown) => JSON.stringify((messages as unknown[])[0]).includes('You summarize conversations');

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw' }));
  environment.openai.settings.contextWindow = 1_000_000;
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

async function say(chatId: number, text: string): Promise<void> {
  const before = sentTo(chatId).length;
  await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, text));
  await waitFor(() => sentTo(chatId).length > before, { what: `the answer to ${text}`, timeoutMs: 20_000 });
}

describe('where the prompt goes', () => {
  it('records the split of each call, with a summary and memories; the console shows it per call and per session', async () => {
    const chatId = 9401;
    environment.openai.script.push(reply.toolCall('remember', { text: 'The user drinks green tea every morning' }), 'Saved.');
    await say(chatId, 'remember that I drink green tea every morning');
    for (const text of ['I am planning a trip to Kyoto in April', 'I would like to see the temples and gardens', 'What should I pack for the weather?']) await say(chatId, text);
    environment.openai.script.respondWith((request, text) =>
      isSummary(request.body.messages) ? 'The user drinks green tea and plans a trip to Kyoto in April to see temples and gardens.' : `You said: ${text}`,
    );
    const before = sentTo(chatId).length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.command(chatId, chatId, 'compact'));
    await waitFor(async () => (await environment.sql`SELECT count(*)::int AS n FROM summaries`)[0]!.n === 1, { what: 'the summary', timeoutMs: 20_000 });
    await waitFor(() => sentTo(chatId).length > before);
    await say(chatId, 'Which tea should I try in Kyoto?');

    const [session] = await environment.sql`SELECT key FROM sessions WHERE key LIKE ${`%:dm:${chatId}`}`;
    const key = String(session!.key);
    const transcript = (await (await fetch(`${service.url}/admin/api/sessions/${encodeURIComponent(key)}/transcript`, { headers: AUTH })).json()) as {
      runs: Array<{ spans: Array<{ kind: string; inputTokens?: number; cacheReadTokens?: number; promptSplit?: Record<(typeof PARTS)[number], number> }> }>;
    };
    const calls = transcript.runs.flatMap((run) => run.spans).filter((span) => span.kind === 'llm' && span.promptSplit);
    // the remember turn's two calls and one call for each of the other four turns
    expect(calls).toHaveLength(6);
    const last = calls.at(-1)!.promptSplit!;
    expect(last.summary).toBeGreaterThan(10);
    expect(last.memories).toBeGreaterThan(5);
    expect(last.system).toBeGreaterThan(100);
    expect(last.tools).toBeGreaterThan(100);
    expect(last.message).toBeGreaterThan(3);
    expect(last.turn).toBe(0);
    // the remember call's tool call and result are the turn so far for its second call
    expect(calls[1]!.promptSplit!.turn).toBeGreaterThan(10);
    // the estimator's sum against the provider's own count (the double counts with o200k): within its known error
    for (const call of calls) {
      const estimated = PARTS.reduce((sum, part) => sum + call.promptSplit![part], 0);
      const reported = (call.inputTokens ?? 0) + (call.cacheReadTokens ?? 0);
      expect(Math.abs(estimated - reported) / reported).toBeLessThan(0.2);
    }

    // the page: a bar for the session and one per call, with the numbers as text
    const page = await (await fetch(`${service.url}/admin/sessions/${encodeURIComponent(key)}`, { headers: AUTH })).text();
    expect(page).toContain('<h2 id="prompt-split-heading">Where the prompt went</h2>');
    expect(page).toMatch(/<figcaption>6 model calls of this session: System prompt [\d,]+ · Tool schemas [\d,]+ · Memories [\d,]+ · Summary [\d,]+ · History [\d,]+ · New message [\d,]+ · This turn so far [\d,]+ \(of [\d,]+ input tokens the provider counted\)<\/figcaption>/);
    expect(page).toMatch(/<rect class="split-summary" x="[\d.]+" y="0" width="[\d.]+" height="16"><title>Summary: [\d,]+ tokens<\/title><\/rect>/);
    expect(page.match(/<figcaption>Call \d+ \(openai:gpt-4o-mini\)/g)).toHaveLength(6);
  }, 90_000);
});
