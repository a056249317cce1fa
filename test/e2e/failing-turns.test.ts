import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoResponder, reply } from '../doubles/model-script.js';
import type { TelegramDouble } from '../doubles/telegram-double.js';
import { dashboardWriteHeaders } from '../gateway/support/dashboard-token.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { alertFires, FAILED_TURNS_ALERT, PAUSED_TURNS_ALERT, RETRYING_TURNS_ALERT, TURNS_BACKLOG_ALERT } from './support/alert-rules.js';

/**
 * CONTRACT §19 end to end: every model of the chain fails (the OpenAI double answers 500 to both), so a turn is
 * retried (TURN_RETRY_* shortened: 3 attempts, 0.5 and 1 s apart, a second round 1 s later), its user told once early
 * that the bot keeps trying, counted as retrying, then kept as a dead letter, counted as failed (the alert rule turns
 * true), answered once in order when an operator retries it from the queue view, gone when discarded; /stop during
 * the retries ends the turn with nothing sent twice.
 */
const ADMIN = 'Basic ' + Buffer.from('ops:pw').toString('base64');
let environment: E2eEnvironment;
let telegram: TelegramDouble;
let service: ServiceProcess;

const NOTICE = /keep trying for up to/;
const FINAL = /could not answer your message after trying for/;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  ({ telegram } = environment);
  environment.openai.script.respondWith(() => reply.serverError(500));
  service = await startServiceProcess(
    environment.env({
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 'pw',
      LLM_FALLBACK_MODELS: 'openai:gpt-backup',
      LLM_MAX_RETRIES: '0',
      TURN_FAILING_NOTICE_MS: '1250',
      TURN_RETRY_ATTEMPTS: '3',
      TURN_RETRY_FIRST_DELAY_MS: '500',
      TURN_RETRY_ROUNDS: '1',
      TURN_RETRY_ROUND_DELAY_MS: '1000',
    }),
  );
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const sent = (chatId: number) => telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));
const modelCallsFor = (marker: string) => environment.openai.requests.filter((request) => JSON.stringify(request.body.messages).includes(marker)).length;

async function overviewTurns() {
  const response = await fetch(`${service.url}/admin/api/overview`, { headers: { authorization: ADMIN } });
  const body = (await response.json()) as { queues: Array<{ queue: string; running: number; waiting: number; delayed: number; retrying?: number; failed: number; paused: boolean }> };
  return body.queues.find((queue) => queue.queue === 'turns')!;
}

async function metricsText(): Promise<string> {
  return (await fetch(`${service.url}/metrics`)).text();
}

interface BoardJob {
  id: string;
  name: string;
  failedReason: string;
  stacktrace: string[];
  data: Record<string, unknown>;
}

async function boardTurns(status: string) {
  const response = await fetch(`${service.url}/admin/queues/api/queues?activeQueue=turns&status=${status}&page=1&jobsPerPage=50`, { headers: { authorization: ADMIN } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { queues: Array<{ name: string; counts: Record<string, number>; jobs: BoardJob[]; isPaused: boolean; readOnlyMode: boolean }> };
  return body.queues.find((queue) => queue.name === 'turns')!;
}

async function boardAction(path: string): Promise<number> {
  const headers = { ...(await dashboardWriteHeaders(service.url, ADMIN)), origin: service.url, 'sec-fetch-site': 'same-origin' };
  return (await fetch(`${service.url}/admin/queues/api/queues/turns${path}`, { method: 'PUT', headers })).status;
}

describe('turns whose every model fails', () => {
  it('tell their user once, early; count as retrying, then as failed (the alert turns true); keep the messages as a dead letter', async () => {
    expect(alertFires(FAILED_TURNS_ALERT, await metricsText())).toBe(false);
    const [kept, dropped] = [9601, 9602];
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(kept, 'please answer KEEP-ME'));
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(dropped, 'please answer DROP-ME'));

    await waitFor(() => sent(kept).some((text) => NOTICE.test(text)), { what: 'the early notice', timeoutMs: 20_000 });
    // told before the third attempt: the 2nd failure is the last whose next attempt starts within TURN_FAILING_NOTICE_MS
    expect(modelCallsFor('KEEP-ME')).toBeLessThanOrEqual(2 * 2);
    expect(sent(kept).find((text) => NOTICE.test(text))).toMatch(/Send \/stop to cancel/);
    await waitFor(async () => ((await overviewTurns()).retrying ?? 0) >= 1, { what: 'a retrying turn in the overview', timeoutMs: 10_000 });
    expect(alertFires(RETRYING_TURNS_ALERT, await metricsText())).toBe(true);

    await waitFor(async () => (await overviewTurns()).failed === 2, { what: 'two failed turns', timeoutMs: 40_000 });
    expect(alertFires(FAILED_TURNS_ALERT, await metricsText())).toBe(true);
    for (const chatId of [kept, dropped]) {
      const texts = sent(chatId);
      // one notice, one final message, nothing else
      expect(texts.filter((text) => NOTICE.test(text))).toHaveLength(1);
      expect(texts.filter((text) => FINAL.test(text))).toHaveLength(1);
      expect(texts).toHaveLength(2);
    }

    const failed = await boardTurns('failed');
    expect(failed.counts.failed).toBe(2);
    const keptJob = failed.jobs.find((job) => String(job.data.chatId) === String(kept))!;
    expect(keptJob.name).toMatch(/^Failed after every retry: /);
    expect(keptJob.failedReason).toMatch(/500/);
    // every attempt's reason, both rounds
    expect(keptJob.stacktrace).toHaveLength(6);
    // message text hidden unless ADMIN_SHOW_MESSAGE_TEXT=true: ids, lengths and kinds
    expect(JSON.stringify(keptJob.data)).not.toContain('KEEP-ME');
    expect(keptJob.data).toMatchObject({ channel: 'telegram', messageCount: 1, messages: [{ length: 'please answer KEEP-ME'.length, kinds: ['text'] }] });

    // Retry: answered once, in order; Discard: gone, never answered
    environment.openai.script.respondWith(echoResponder);
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(kept, 'and LATER-ONE'));
    await waitFor(() => sent(kept).some((text) => text.includes('LATER-ONE')), { what: 'the later message answered', timeoutMs: 20_000 });
    expect(await boardAction(`/${keptJob.id}/retry`)).toBe(204);
    expect(await boardAction(`/${keptJob.id}/retry`)).toBe(404);
    const droppedJob = failed.jobs.find((job) => String(job.data.chatId) === String(dropped))!;
    expect(await boardAction(`/${droppedJob.id}/clean`)).toBe(204);
    await waitFor(() => sent(kept).some((text) => text.includes('KEEP-ME')), { what: 'the retried turn answered', timeoutMs: 20_000 });
    await waitFor(async () => (await overviewTurns()).failed === 0, { what: 'no failed turns left', timeoutMs: 10_000 });
    expect(sent(kept).filter((text) => text.includes('You said'))).toEqual(['You said: and LATER-ONE', 'You said: please answer KEEP-ME']);
    expect(sent(dropped).filter((text) => text.includes('You said'))).toEqual([]);
    expect(alertFires(FAILED_TURNS_ALERT, await metricsText())).toBe(false);
  }, 120_000);

  it('end at /stop during their retries, with nothing sent twice', async () => {
    environment.openai.script.respondWith(() => reply.serverError(500));
    const chatId = 9603;
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, 'please answer STOP-ME'));
    await waitFor(() => sent(chatId).some((text) => NOTICE.test(text)), { what: 'the early notice', timeoutMs: 20_000 });
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, '/stop'));
    await waitFor(() => sent(chatId).some((text) => text.startsWith('Stopped.')), { what: 'the /stop answer', timeoutMs: 10_000 });
    await waitFor(async () => {
      const turns = await overviewTurns();
      return turns.retrying === 0 && turns.running === 0 && turns.delayed === 0;
    }, { what: 'nothing left of the turn', timeoutMs: 20_000 });
    const calls = modelCallsFor('STOP-ME');
    // the rest of its retry period passes (0.5 + 1 s, 1 s, 0.5 + 1 s in all): no attempt, no message more
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(modelCallsFor('STOP-ME')).toBe(calls);
    const texts = sent(chatId);
    expect(texts.filter((text) => NOTICE.test(text))).toHaveLength(1);
    expect(texts.filter((text) => FINAL.test(text))).toHaveLength(0);
    expect((await overviewTurns()).failed).toBe(0);
    environment.openai.script.respondWith(echoResponder);
  }, 60_000);

  it('stop starting when paused from the queue view, shown in the overview, and start again on resume', async () => {
    environment.openai.script.respondWith(echoResponder);
    expect(alertFires(PAUSED_TURNS_ALERT, await metricsText())).toBe(false);
    expect(await boardAction('/pause')).toBe(200);
    expect((await boardTurns('waiting')).isPaused).toBe(true);
    // the workers read the pause flag once a second
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const chatId = 9604;
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, 'please answer PAUSED-ONE'));
    await waitFor(async () => {
      const turns = await overviewTurns();
      return turns.paused && turns.waiting === 1;
    }, { what: 'the message waiting while paused', timeoutMs: 10_000 });
    // the chat's /status says so too (commands are answered at once, paused or not)
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, '/status'));
    await waitFor(() => sent(chatId).some((text) => text.includes('Queue: 0 running, 1 waiting; turns are paused by an operator')), { what: '/status saying turns are paused', timeoutMs: 10_000 });
    const paused = await boardTurns('paused');
    expect(paused.counts.paused).toBe(1);
    expect(paused.jobs[0]!.data).toMatchObject({ chatId: String(chatId), messageCount: 1 });
    expect(modelCallsFor('PAUSED-ONE')).toBe(0);
    expect(alertFires(PAUSED_TURNS_ALERT, await metricsText())).toBe(true);
    // one message waiting is no backlog; the rule's expression is read and evaluated all the same
    expect(alertFires(TURNS_BACKLOG_ALERT, await metricsText())).toBe(false);
    expect(await boardAction('/resume')).toBe(200);
    await waitFor(() => sent(chatId).includes('You said: please answer PAUSED-ONE'), { what: 'the answer after resume', timeoutMs: 10_000 });
    // the completed tab: the last day's stored turns from the runs table, newest first, no message text
    const completed = await waitFor(async () => {
      const board = await boardTurns('completed');
      return board.jobs.some((job) => job.data.chatId === String(chatId)) ? board : undefined;
    }, { what: 'the answered turn in the completed tab', timeoutMs: 10_000 });
    expect(completed.counts.completed).toBeGreaterThanOrEqual(1);
    const answered = completed.jobs.find((job) => job.data.chatId === String(chatId))!;
    expect(answered.name).toMatch(/^Answered: /);
    expect(answered.data).toMatchObject({ channel: 'telegram', status: 'completed' });
    expect(JSON.stringify(answered)).not.toContain('PAUSED-ONE');
  }, 30_000);
});
