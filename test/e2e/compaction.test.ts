import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../../src/agent/index.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  environment = await createE2eEnvironment();
  services.push(await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '' })));
  // two worker processes that each run one job at a time: two /compact jobs must land on different processes
  services.push(await startServiceProcess(environment.env({ ROLE: 'worker', WORKER_CONCURRENCY: '1' })));
  services.push(await startServiceProcess(environment.env({ ROLE: 'worker', WORKER_CONCURRENCY: '1' })));
});

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await environment?.close();
});

const gatewayUrl = () => services[0]!.url;
const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
// the summarizer's own system prompt tells its requests apart from turns (whose history may quote a summary)
const summaryRequests = () =>
  environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages[0]).includes('You summarize conversations'));

describe('compaction', () => {
  it('summarizes on /compact under a per-session lock held by one process at a time; the next turn uses the summary', async () => {
    const chatId = 8001;
    for (const text of ['my name is Grace', 'I like compilers', 'I live in Arlington', 'remind me of COBOL']) {
      const before = sentTo(chatId).length;
      await postTelegramUpdate(gatewayUrl(), environment.telegram.makeUpdate.privateText(chatId, text));
      await waitFor(() => sentTo(chatId).length > before);
    }
    environment.openai.script.respondWith((request, text) =>
      JSON.stringify(request.body.messages[0]).includes('You summarize conversations')
        ? 'The user, Grace, likes compilers and lives in Arlington.'
        : `You said: ${text}`,
    );
    environment.openai.settings.latencyMs = 1_000;
    await Promise.all([
      postTelegramUpdate(gatewayUrl(), environment.telegram.makeUpdate.command(chatId, chatId, 'compact')),
      postTelegramUpdate(gatewayUrl(), environment.telegram.makeUpdate.command(chatId, chatId, 'compact')),
    ]);
    const queue = new Queue('inbound', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
    const compactJobs = await waitFor(async () => {
      const jobs = (await queue.getCompleted()).filter((job) => job.name === 'compact');
      return jobs.length === 2 ? jobs : undefined;
    }, { timeoutMs: 15_000, what: 'both compact jobs' });
    environment.openai.settings.latencyMs = 0;
    expect(compactJobs.map((job) => job.returnvalue).sort()).toEqual(['locked', 'summarized']);
    expect(new Set(compactJobs.map((job) => job.processedBy)).size).toBe(2);
    expect(summaryRequests()).toHaveLength(1);
    const summaries = await environment.sql`SELECT summary, covers_up_to_seq::int AS covers FROM summaries`;
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.covers).toBe(3); // 8 messages, the last 4 kept verbatim
    const [session] = await environment.sql`SELECT compaction_count FROM sessions WHERE key LIKE ${`%:dm:${chatId}`}`;
    expect(session!.compaction_count).toBe(1);
    expect(sentTo(chatId).slice(-2).map((call) => call.params.text)).toEqual([
      'Summarizing the conversation so far; the next answer uses the summary.',
      'Summarizing the conversation so far; the next answer uses the summary.',
    ]);

    await postTelegramUpdate(gatewayUrl(), environment.telegram.makeUpdate.privateText(chatId, 'who am I?'));
    const request = await waitFor(() => environment.openai.modelCalls.find((call) => JSON.stringify(call.body).includes('who am I?')));
    const sent = JSON.stringify(request.body.messages);
    expect(sent).toContain(`${SUMMARY_MARKER}\\nThe user, Grace, likes compilers and lives in Arlington.`);
    expect(sent).not.toContain('my name is Grace'); // summarized away (messages are still stored)
    expect(sent).toContain('remind me of COBOL'); // the last messages stay verbatim
    await waitFor(async () => {
      const [stored] = await environment.sql`SELECT count(*)::int AS n FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`;
      return stored!.n === 10; // nothing was deleted by the compaction
    }, { what: 'all ten messages stored' });
    await queue.close();
  });

  it('compacts and retries once when the provider says the context is too long', async () => {
    const chatId = 8002;
    for (const text of ['first fact', 'second fact', 'third fact']) {
      const before = sentTo(chatId).length;
      await postTelegramUpdate(gatewayUrl(), environment.telegram.makeUpdate.privateText(chatId, text));
      await waitFor(() => sentTo(chatId).length > before);
    }
    const summariesBefore = summaryRequests().length;
    environment.openai.script.push(reply.contextTooLong());
    await postTelegramUpdate(gatewayUrl(), environment.telegram.makeUpdate.privateText(chatId, 'a question that no longer fits'));
    await waitFor(() => sentTo(chatId).length === 4, { what: 'the answer after compaction' });
    expect(sentTo(chatId).at(-1)!.params.text).toBe('You said: a question that no longer fits');
    expect(summaryRequests().length).toBe(summariesBefore + 1);
    const retried = environment.openai.modelCalls.filter((call) => JSON.stringify(call.body).includes('a question that no longer fits'));
    expect(retried.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(retried.at(-1)!.body.messages)).toContain(SUMMARY_MARKER);
  });
});
