import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Issue 20, "a chat must never stay broken": a turn the provider refuses as too long (and the summarizer with
 * it) ends once with a sentence saying why and what to do; the refused input stays stored but never goes to the
 * model again, so the next message of the chat is answered normally.
 */
let environment: E2eEnvironment;
const services: ServiceProcess[] = [];
const TOO_LONG_REPLY =
  'Sorry, that was too long for the model to read in one go. Please send it shorter or split it into several messages (or start over with /new).';
const MARKER = 'OVERSIZED-7731';
/** About 30K characters of Chinese: tens of thousands of tokens, far beyond the provider's real window below. */
const OVERSIZED = `${MARKER}\n${'长文本测试：这是一段非常长的消息，用来检查模型拒绝之后聊天还能继续。'.repeat(900)}`;

beforeAll(async () => {
  environment = await createE2eEnvironment();
});

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await environment?.close();
});

const sentTo = (chatId: number) =>
  environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));
const isSummary = (request: RecordedRequest) => JSON.stringify(request.body).includes('You summarize conversations');
const carries = (requests: RecordedRequest[], text: string) => requests.filter((request) => JSON.stringify(request.body).includes(text));

async function storedRuns(chatId: number) {
  return environment.sql<Array<{ status: string; error: string | null }>>`
    SELECT r.status, r.error FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`} ORDER BY r.started_at`;
}

async function talk(service: ServiceProcess, chatId: number, text: string, answers: number) {
  await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, text));
  await waitFor(() => sentTo(chatId).length >= answers, { what: `answer ${answers} in chat ${chatId}`, timeoutMs: 30_000 });
}

describe('a turn too long for the model', () => {
  it('OpenAI: refused as context_length_exceeded (the summarizer too), it ends once with why; the next message is answered without it', async () => {
    // the provider's real window is far below the 128K the service assumes for gpt-4o-mini
    environment.openai.settings.contextWindow = 16_384;
    environment.openai.script.respondWith((request, text) => (isSummary(request) ? reply.contextTooLong() : `You said: ${text}`));
    const service = await startServiceProcess(environment.env({ LLM_MAX_RETRIES: '0' }));
    services.push(service);
    const chatId = 9301;
    for (const [index, text] of ['my name is Ada', 'I like engines', 'I live in London'].entries()) await talk(service, chatId, text, index + 1);

    const before = environment.openai.modelCalls.length;
    await talk(service, chatId, OVERSIZED, 4);
    const refused = environment.openai.modelCalls.slice(before);
    expect(carries(refused, MARKER).length).toBeGreaterThanOrEqual(2);
    expect(refused.some(isSummary)).toBe(true); // the summarizer was asked, and refused too
    await waitFor(async () => (await storedRuns(chatId)).length === 4, { what: 'the refused turn stored' });
    expect(sentTo(chatId)[3]).toBe(TOO_LONG_REPLY);

    const afterRefusal = environment.openai.modelCalls.length;
    await talk(service, chatId, 'are you still there?', 5);
    expect(sentTo(chatId)[4]).toBe('You said: are you still there?');
    const next = environment.openai.modelCalls.slice(afterRefusal).filter((request) => !isSummary(request));
    expect(next).toHaveLength(1);
    expect(carries(next, MARKER)).toEqual([]);
    expect(JSON.stringify(next[0]!.body.messages)).toContain('was left out here: it was too long for the model to read');
    // the history before the refused turn is still there
    expect(JSON.stringify(next[0]!.body.messages)).toContain('I live in London');

    // exactly one message for the refused turn; the input is kept in the record
    expect(sentTo(chatId)).toHaveLength(5);
    const runs = await waitFor(async () => {
      const stored = await storedRuns(chatId);
      return stored.length === 5 ? stored : undefined;
    }, { what: 'five runs' });
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed', 'completed', 'failed', 'completed']);
    expect(runs[3]!.error).toMatch(/context_length_exceeded|maximum context length/);
    const [kept] = await environment.sql`
      SELECT m.omitted_from_context FROM messages m JOIN sessions s ON s.id = m.session_id
       WHERE s.key LIKE ${`%:dm:${chatId}`} AND m.parts::text LIKE ${`%${MARKER}%`}`;
    expect(kept).toEqual({ omitted_from_context: true });
    await service.stop();
    environment.openai.settings.contextWindow = undefined;
    environment.openai.script.reset();
  });

  it('Anthropic: refused as "prompt is too long" on every try, it ends once with why; the next message is answered without it', async () => {
    // this provider refuses every request that carries the oversized text, whatever the service trims around it
    environment.anthropic.script.respondWith((request, text) => (JSON.stringify(request.body).includes(MARKER) ? reply.contextTooLong() : `You said: ${text}`));
    const service = await startServiceProcess(environment.env({ LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-test', LLM_MAX_RETRIES: '0' }));
    services.push(service);
    const chatId = 9302;
    await talk(service, chatId, 'hello there', 1);
    await talk(service, chatId, OVERSIZED, 2);
    expect(sentTo(chatId)[1]).toBe(TOO_LONG_REPLY);
    await waitFor(async () => (await storedRuns(chatId)).length === 2, { what: 'the refused turn stored' });

    const afterRefusal = environment.anthropic.modelCalls.length;
    await talk(service, chatId, 'and now a short one', 3);
    // (the API merges consecutive user messages: the double's echo shows the note's text before the new words)
    expect(sentTo(chatId)[2]).toMatch(/^You said: .*and now a short one$/s);
    const next = environment.anthropic.modelCalls.slice(afterRefusal);
    expect(next).toHaveLength(1);
    expect(carries(next, MARKER)).toEqual([]);
    expect(JSON.stringify(next[0]!.body.messages)).toContain('hello there');
    expect(sentTo(chatId)).toHaveLength(3);
    await service.stop();
  });
});
