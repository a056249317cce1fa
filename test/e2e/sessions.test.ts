import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let gateway: ServiceProcess;
let worker: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  // The gateway takes webhooks and commands; turns run in a separate worker process.
  gateway = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '' }));
  worker = await startServiceProcess(environment.env({ ROLE: 'worker' }));
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

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
const textsTo = (chatId: number) => sentTo(chatId).map((call) => String(call.params.text));
const post = (update: unknown) => postTelegramUpdate(gateway.url, update);
const updates = () => environment.telegram.makeUpdate;
const callsMentioning = (marker: string) => environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages).includes(marker));

/** The most model requests for one session that overlapped in time. */
function maxOverlap(requests: Array<{ receivedAt: number; endedAt: number | undefined }>): number {
  const edges = requests.flatMap((request) => [
    [request.receivedAt, 1],
    [request.endedAt ?? Number.MAX_SAFE_INTEGER, -1],
  ]);
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let current = 0;
  let max = 0;
  for (const [, delta] of edges) max = Math.max(max, (current += delta!));
  return max;
}

describe('sessions under concurrency', () => {
  it('runs at most 3 turns of one group at once, answers all, and does not make a DM wait behind them', async () => {
    environment.openai.settings.latencyMs = 1_200;
    const groupId = -1006001;
    await Promise.all(Array.from({ length: 6 }, (_, index) => post(updates().mention(groupId, 6100 + index, `group question ${index}`))));
    await environment.openai.waitFor(() => callsMentioning('group question').length >= 3, 10_000);
    await post(updates().privateText(6200, 'a DM meanwhile'));

    await waitFor(() => callsMentioning('group question 5').length > 0 && sentTo(groupId).length >= 4, { timeoutMs: 20_000, what: 'all group turns' });
    const groupRequests = callsMentioning('group question');
    expect(maxOverlap(groupRequests)).toBeLessThanOrEqual(3);
    expect(maxOverlap(groupRequests)).toBe(3);
    for (let index = 0; index < 6; index++) expect(callsMentioning(`group question ${index}`).length).toBeGreaterThan(0);
    // six mentions: three ran at once, the three that waited were collected into one more turn
    expect(sentTo(groupId)).toHaveLength(4);
    const dmAnsweredAt = sentTo(6200)[0]!.at;
    expect(dmAnsweredAt).toBeLessThan(sentTo(groupId).at(-1)!.at);
  });

  it('/stop sent to the gateway aborts the turn running on the worker within 1 s, drops what waits, sends no late answer', async () => {
    environment.openai.script.push(reply.hang());
    const chatId = 6300;
    await post(updates().privateText(chatId, 'a very long task'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    await post(updates().privateText(chatId, 'and this waits behind it'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopAt = Date.now();
    expect((await post(updates().command(chatId, chatId, 'stop'))).status).toBe(200);
    await environment.openai.waitFor(() => environment.openai.inFlight === 0, 5_000);
    const aborted = environment.openai.modelCalls.find((call) => JSON.stringify(call.body).includes('a very long task'))!;
    expect(aborted.aborted).toBe(true);
    expect(aborted.endedAt! - stopAt).toBeLessThan(1_000);
    await waitFor(() => textsTo(chatId).length > 0);
    expect(textsTo(chatId)[0]).toMatch(/^Stopped\. Dropped 1 waiting message\.$/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(textsTo(chatId)).toHaveLength(1);
    expect(callsMentioning('and this waits behind it')).toHaveLength(0);
    const runs = await environment.sql`SELECT r.status FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`;
    expect(runs.map((run) => run.status)).toEqual(['cancelled']);
  });

  it('answers a group only when addressed and shows the model what was said since its last reply', async () => {
    const groupId = -1006400;
    await post(updates().groupText(groupId, 6401, 'lunch at noon?'));
    await post(updates().groupText(groupId, 6402, 'sure, pizza'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sentTo(groupId)).toHaveLength(0);
    expect(callsMentioning('lunch at noon?')).toHaveLength(0);

    await post(updates().mention(groupId, 6403, 'what did they decide?'));
    await waitFor(() => sentTo(groupId).length > 0);
    const [request] = callsMentioning('what did they decide?');
    const userText = JSON.stringify(request!.body.messages.at(-1).content);
    expect(userText).toContain('Messages since your last reply');
    expect(userText.indexOf('lunch at noon?')).toBeLessThan(userText.indexOf('sure, pizza'));
    expect(userText.trim().endsWith('what did they decide?"')).toBe(true);

    await post(updates().reply(groupId, 6404, 'and dessert?'));
    await waitFor(() => sentTo(groupId).length > 1, { what: 'a reply to the bot answered' });
    const [second] = callsMentioning('and dessert?');
    expect(JSON.stringify(second!.body.messages.at(-1).content)).not.toContain('lunch at noon?');
  });

  it('/new starts a fresh conversation, /status and /help answer at once', async () => {
    const chatId = 6500;
    await post(updates().privateText(chatId, 'remember the word PINEAPPLE'));
    await waitFor(() => sentTo(chatId).length === 1);
    await post(updates().privateText(chatId, 'what was the word?'));
    await waitFor(() => sentTo(chatId).length === 2);
    expect(JSON.stringify(callsMentioning('what was the word?')[0]!.body.messages)).toContain('PINEAPPLE');

    await post(updates().command(chatId, chatId, 'new'));
    await waitFor(() => sentTo(chatId).length === 3);
    expect(textsTo(chatId)[2]).toMatch(/fresh conversation/);
    await post(updates().privateText(chatId, 'and now?'));
    await waitFor(() => sentTo(chatId).length === 4);
    expect(JSON.stringify(callsMentioning('and now?')[0]!.body.messages)).not.toContain('PINEAPPLE');

    // the answer is out before the turn is stored and its slot released: /status counts a running turn until then
    const turns = environment.keys.session(`agent:main:telegram:${environment.telegram.botId}:dm:${chatId}`).turns;
    await waitFor(async () => (await environment.redis.hlen(turns)) === 0, { what: 'the turn released' });
    await post(updates().command(chatId, chatId, 'status'));
    await waitFor(() => sentTo(chatId).length === 5);
    // every number says what it counts (the context estimate is far below the tokens sent, which add up every call)
    expect(textsTo(chatId)[4]).toMatch(
      /^Model: openai\/gpt-4o-mini\nTokens used: [\d,]+ in, [\d,]+ out in this session \(in: everything sent to the model, added up over all its calls, each of which sends the instructions, tools and conversation again; out: everything it wrote\); cost \$[\d.]+; prompt cache: [\d,]+ read, [\d,]+ written\nContext: ~([\d,]+) of 128,000 tokens \(\d+%\): ~\1 is the conversation the next message starts from \(an estimate, before the instructions and tools\); 128,000 is the most the model takes in at once\nQueue: 0 running, 0 waiting$/,
    );

    await post(updates().command(chatId, chatId, 'help'));
    await waitFor(() => sentTo(chatId).length === 6);
    for (const command of ['/stop', '/new', '/status', '/compact', '/help']) expect(textsTo(chatId)[5]).toContain(command);
    const [stored] = await environment.sql`SELECT count(*)::int AS n FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`;
    expect(stored!.n).toBe(6); // history is kept after /new, only no longer sent
  });

  it('takes /stop@ThisBot in a group and ignores commands for other bots', async () => {
    const groupId = -1006600;
    await post(updates().command(groupId, 6601, 'help', { target: 'SomeOtherBot' }));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(sentTo(groupId)).toHaveLength(0);
    await post(updates().command(groupId, 6601, 'stop', { target: environment.telegram.botUsername }));
    await waitFor(() => sentTo(groupId).length > 0);
    expect(textsTo(groupId)[0]).toBe('Nothing to stop.');
  });
});
