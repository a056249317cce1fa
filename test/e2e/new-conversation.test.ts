import type postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * `/new` takes effect at a turn boundary in the session's own order (CONTRACT §4): the turn running or still
 * flushing when it arrives is the last of the old conversation, and the next turn sees nothing from before it.
 * The flush is held back on purpose (a lock on `runs` blocks the turn's one INSERT while reads go on), so the old
 * turn's messages reach PostgreSQL after `/new` was answered, every time rather than one run in four.
 */
let environment: E2eEnvironment;
let gateway: ServiceProcess;
let worker: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  gateway = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '' }));
  worker = await startServiceProcess(environment.env({ ROLE: 'worker', GROUP_MAX_CONCURRENT: '2' }));
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await environment?.close();
});

afterEach(() => {
  environment.openai.settings.latencyMs = 0;
  environment.openai.script.clear();
  environment.openai.script.respondWith((_request, text) => `You said: ${text}`);
});

const post = (update: unknown) => postTelegramUpdate(gateway.url, update);
const updates = () => environment.telegram.makeUpdate;
const textsTo = (chatId: number) =>
  environment.telegram
    .callsOf('sendMessage')
    .filter((call) => call.params.chat_id === chatId && !call.failed)
    .map((call) => String(call.params.text));
const requestMentioning = (marker: string) => environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages).includes(marker));

/** Holds every INSERT into `runs` (a turn's flush starts with one) until `release`; reads go on. */
async function holdFlushes(sql: postgres.Sql): Promise<{ release(): Promise<void> }> {
  const reserved = await sql.reserve();
  await reserved`begin`;
  await reserved`lock table runs in exclusive mode`;
  return {
    async release() {
      await reserved`commit`;
      reserved.release();
    },
  };
}

/** Waits until some connection waits on the lock (the turn's flush is blocked behind it). */
async function flushBlocked(sql: postgres.Sql): Promise<void> {
  await waitFor(async () => {
    const [row] = await sql<Array<{ waiting: number }>>`select count(*)::int as waiting from pg_locks where not granted and relation = 'runs'::regclass`;
    return row!.waiting > 0;
  }, { what: 'a flush waiting on the runs lock' });
}

describe('/new at a turn boundary', () => {
  it('a DM turn still flushing when /new is answered stays in the old conversation', async () => {
    const chatId = 7101;
    await post(updates().privateText(chatId, 'first question alpha'));
    await waitFor(() => textsTo(chatId).length === 1, { what: 'the first answer' });
    await environment.storedUserMessages(`%:dm:${chatId}`);

    const held = await holdFlushes(environment.sql);
    try {
      await post(updates().privateText(chatId, 'second question bravo'));
      await waitFor(() => textsTo(chatId).length === 2, { what: 'the second answer' });
      await flushBlocked(environment.sql);
      await post(updates().command(chatId, chatId, 'new'));
      await waitFor(() => textsTo(chatId).some((text) => text.startsWith('Started a fresh conversation')), { what: 'the /new answer' });
      await post(updates().privateText(chatId, 'third question charlie'));
    } finally {
      await held.release();
    }
    await waitFor(() => requestMentioning('third question charlie'), { what: 'the third turn' });
    const third = JSON.stringify(requestMentioning('third question charlie')!.body.messages);
    expect(third).not.toContain('first question alpha');
    expect(third).not.toContain('second question bravo');
    // the old conversation is kept, the new one holds only what came after /new
    await waitFor(async () => (await environment.storedUserMessages(`%:dm:${chatId}`)).length === 3, { what: 'three stored user messages' });
  });

  it('a group turn running across /new is not seen by a turn of the new conversation that finished before it', async () => {
    const groupId = -1007101;
    await post(updates().mention(groupId, 7201, 'old topic delta'));
    await waitFor(() => textsTo(groupId).length === 1, { what: 'the first group answer' });
    await environment.storedUserMessages(`%:group:${groupId}%`);

    // a slow turn of the old conversation, running while /new arrives and while the next turns run and store
    environment.openai.settings.latencyMs = 2_500;
    await post(updates().mention(groupId, 7202, 'slow old echo'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    environment.openai.settings.latencyMs = 0;
    // a line nobody addressed to the bot, waiting as context for the next turn: /new drops it too
    await post(updates().groupText(groupId, 7204, 'unaddressed chatter hotel'));
    await post(updates().command(groupId, 7201, 'new'));
    await waitFor(() => textsTo(groupId).some((text) => text.startsWith('Started a fresh conversation')), { what: 'the /new answer' });
    await post(updates().mention(groupId, 7203, 'new topic foxtrot'));
    await waitFor(() => textsTo(groupId).some((text) => text.includes('new topic foxtrot')), { what: 'the new conversation answered' });
    await waitFor(() => textsTo(groupId).some((text) => text.includes('slow old echo')), { what: 'the slow old turn answered' });
    // let the slow turn's flush land before the next message
    await waitFor(async () => (await environment.storedUserMessages(`%:group:${groupId}%`)).length === 3, { what: 'three stored user messages' });

    await post(updates().mention(groupId, 7203, 'after both golf'));
    await waitFor(() => requestMentioning('after both golf'), { what: 'the turn after both' });
    const after = JSON.stringify(requestMentioning('after both golf')!.body.messages);
    expect(after).toContain('new topic foxtrot');
    expect(after).not.toContain('slow old echo');
    expect(after).not.toContain('old topic delta');
    expect(JSON.stringify(requestMentioning('new topic foxtrot')!.body.messages)).not.toContain('unaddressed chatter hotel');
  });
});
