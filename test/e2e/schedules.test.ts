import { Queue } from 'bullmq';
import { describe, expect, it as base } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

const LIMITS = { SCHEDULE_MIN_INTERVAL_S: '2', SCHEDULE_MAX_PER_CHAT: '2', TURN_LEASE_MS: '2000' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One test's own doubles, database, queue prefix and service processes. The tests of this file spend most of their
 * time waiting for schedules to come due, so they run side by side (`describe.concurrent`): nothing is shared.
 */
async function createScheduleHarness() {
  const environment: E2eEnvironment = await createE2eEnvironment();
  const services: ServiceProcess[] = [];

  async function start(overrides: Record<string, string> = {}) {
    const service = await startServiceProcess(environment.env({ ...LIMITS, ...overrides }));
    services.push(service);
    return service;
  }

  const updates = () => environment.telegram.makeUpdate;
  const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
  const answersWith = (chatId: number, words: string) => sentTo(chatId).filter((call) => String(call.params.text).includes(words));

  /** Posts and waits for the next message the bot sends into the chat; returns its text. */
  async function say(url: string, chatId: number, update: unknown): Promise<string> {
    const before = sentTo(chatId).length;
    await postTelegramUpdate(url, update);
    const calls = await waitFor(() => (sentTo(chatId).length > before ? sentTo(chatId) : undefined), { timeoutMs: 30_000, what: `an answer in ${chatId}` });
    return String(calls[before]!.params.text);
  }

  /** The model calls schedule_task with `args` (or whichever tool), then says `after`; returns the tool's result as the model saw it. */
  async function callTool(url: string, chatId: number, name: string, args: unknown, userId = chatId): Promise<string> {
    environment.openai.script.push(reply.toolCall(name, args), 'Done.');
    const update = chatId > 0 ? updates().privateText(chatId, `please ${name}`) : updates().mention(chatId, userId, `please ${name}`);
    await say(url, chatId, update);
    const request = environment.openai.modelCalls.at(-1)!;
    const result = request.body.messages.at(-1);
    expect(result.role).toBe('tool');
    return String(result.content);
  }

  /** The chat's firings in the order they were handed to the session: each one's slot (in its id) and when it was handed over. */
  async function firingsOf(chatId: number): Promise<Array<{ slot: number; handedAt: number }>> {
    const rows = await environment.sql`SELECT m.inbound_key, m.created_at FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE m.inbound_key LIKE 'schedule.%' AND s.key LIKE ${`%:${chatId}`} ORDER BY m.created_at`;
    return rows.map((row) => ({ slot: Number(/\.(\d+)$/.exec(row.inbound_key)![1]), handedAt: new Date(row.created_at).getTime() }));
  }

  async function taskOf(chatId: number) {
    const [task] = await environment.sql`SELECT * FROM scheduled_tasks WHERE chat_key LIKE ${`%:${chatId}`} ORDER BY created_at DESC LIMIT 1`;
    return task!;
  }

  async function close() {
    await Promise.all(services.splice(0).map((service) => service.stop()));
    await environment.close();
  }

  return { environment, start, updates, sentTo, answersWith, say, callTool, firingsOf, taskOf, close };
}

const it = base.extend<{ harness: Awaited<ReturnType<typeof createScheduleHarness>> }>({
  // vitest reads which fixtures a fixture needs from this (empty) object pattern
  harness: async ({}, use) => {
    const harness = await createScheduleHarness();
    try {
      await use(harness);
    } finally {
      await harness.close();
    }
  },
});

describe.concurrent('scheduled tasks', () => {
  it('a repeating task fires once per firing with two service processes; the model is told it is a scheduled prompt; /tasks cancel stops it', async ({ harness }) => {
    const { environment, start, updates, answersWith, say, callTool, taskOf } = harness;
    const first = await start();
    await start();
    const chatId = 7101;
    const result = await callTool(first.url, chatId, 'schedule_task', { prompt: 'report PING-A', every_seconds: 2 });
    const task = await taskOf(chatId);
    expect(result).toContain(`Scheduled task ${task.id}: every 2 s`);

    await waitFor(() => answersWith(chatId, 'PING-A').length >= 3, { timeoutMs: 30_000, what: 'three firings' });
    const firing = environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages.at(-1)).includes('PING-A'))!;
    expect(JSON.stringify(firing.body.messages.at(-1))).toContain(`[Scheduled task ${task.id}: the prompt saved when the task was set up, not a new message from the user]`);

    expect(await say(first.url, chatId, updates().command(chatId, chatId, 'tasks', { args: `cancel ${task.id}` }))).toBe(`Cancelled task ${task.id}.`);
    await sleep(3_000); // a firing already handed to the session may still answer
    const settled = answersWith(chatId, 'PING-A').length;
    await sleep(4_500);
    expect(answersWith(chatId, 'PING-A')).toHaveLength(settled);

    // exactly once: every stored firing is distinct and was answered once, with one completed run each
    const fired = await environment.sql`SELECT inbound_key, created_at FROM messages WHERE inbound_key LIKE 'schedule.%' ORDER BY seq`;
    expect(fired.length).toBe(settled);
    expect(new Set(fired.map((row) => row.inbound_key)).size).toBe(fired.length);
    // one firing per slot of the schedule (its time is in the firing id), and one model turn per firing
    const slots = fired.map((row) => Number(/\.(\d+)$/.exec(row.inbound_key)![1]));
    for (let index = 1; index < slots.length; index++) expect(slots[index]! - slots[index - 1]!).toBeGreaterThanOrEqual(2_000);
    // on time: each firing entered its session within moments of its slot
    fired.forEach((row, index) => expect(new Date(row.created_at).getTime() - slots[index]!).toBeLessThan(1_500));
    const firingTurns = environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages.at(-1)).includes('PING-A'));
    expect(firingTurns).toHaveLength(settled);
    const [stored] = await environment.sql`SELECT status, last_outcome, last_run_at FROM scheduled_tasks WHERE id = ${task.id}`;
    expect(stored).toMatchObject({ status: 'cancelled', last_outcome: 'completed' });
    const queue = new Queue('schedules', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
    expect(await queue.getJobScheduler(task.id)).toBeUndefined();
    await queue.close();
  }, 90_000);

  it('a one-shot task whose time passes while the service is down fires once after the restart', async ({ harness }) => {
    const { start, answersWith, callTool, taskOf } = harness;
    const service = await start();
    const chatId = 7102;
    const at = new Date(Date.now() + 6_000).toISOString();
    await callTool(service.url, chatId, 'schedule_task', { prompt: 'remind PING-B', at });
    await service.kill('SIGKILL');
    await sleep(Math.max(0, Date.parse(at) - Date.now()) + 2_000);
    expect(answersWith(chatId, 'PING-B')).toHaveLength(0);
    await start();
    await waitFor(() => answersWith(chatId, 'PING-B').length > 0, { timeoutMs: 30_000, what: 'the late firing' });
    await sleep(3_000);
    expect(answersWith(chatId, 'PING-B')).toHaveLength(1);
    const task = await taskOf(chatId);
    expect(task).toMatchObject({ status: 'done', last_outcome: 'completed' });
  }, 90_000);

  it('a repeating task missed several times while down runs once on restart, then at the first regular time at least half a period later', async ({ harness }) => {
    const { environment, start, answersWith, callTool, firingsOf, taskOf } = harness;
    const service = await start();
    const chatId = 7103;
    await callTool(service.url, chatId, 'schedule_task', { prompt: 'check PING-C', every_seconds: 5 });
    const task = await taskOf(chatId);
    await waitFor(() => answersWith(chatId, 'PING-C').length === 1, { timeoutMs: 20_000, what: 'the first firing' });
    await service.kill('SIGKILL');
    await sleep(13_000); // two periods missed
    const restartedAt = Date.now();
    await start();
    await waitFor(async () => (await firingsOf(chatId)).length >= 2, { timeoutMs: 30_000, what: 'the catch-up firing' });
    // the task shows the next firing meanwhile
    const [afterCatchUp] = await environment.sql`SELECT next_run_at FROM scheduled_tasks WHERE id = ${task.id}`;
    await waitFor(async () => (await firingsOf(chatId)).length >= 3, { timeoutMs: 30_000, what: 'the firing after the catch-up' });
    const [first, catchUp, next] = await firingsOf(chatId);
    // one catch-up for all the missed slots: the one pending when the service died, run after the restart
    expect(catchUp!.slot).toBeLessThan(restartedAt);
    expect(catchUp!.handedAt).toBeGreaterThanOrEqual(restartedAt);
    // the next firing is a regular slot, the first one at least half a period after the catch-up (never two in a moment)
    expect((next!.slot - first!.slot) % 5_000).toBe(0);
    expect(next!.slot - catchUp!.handedAt).toBeGreaterThanOrEqual(2_500);
    expect(next!.slot - catchUp!.handedAt).toBeLessThan(7_500);
    expect(afterCatchUp!.next_run_at.getTime()).toBe(next!.slot);
  }, 90_000);

  it('a catch-up moments before a regular time skips that time: the next firing is the one after', async ({ harness }) => {
    const { environment, start, callTool, firingsOf } = harness;
    const service = await start();
    const chatId = 7111;
    await callTool(service.url, chatId, 'schedule_task', { prompt: 'check PING-H', every_seconds: 6 });
    await waitFor(async () => (await firingsOf(chatId)).length === 1, { timeoutMs: 20_000, what: 'the first firing' });
    const [first] = await firingsOf(chatId);
    // firings are held as while the service is down, and let go 1.5 s before the third regular slot
    const queue = new Queue('schedules', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
    await queue.pause();
    const thirdSlot = first!.slot + 18_000;
    await sleep(thirdSlot - 1_500 - Date.now());
    await queue.resume();
    await queue.close();
    await waitFor(async () => (await firingsOf(chatId)).length >= 3, { timeoutMs: 30_000, what: 'the catch-up and the firing after it' });
    const [, catchUp, next] = await firingsOf(chatId);
    expect(catchUp!.slot).toBe(first!.slot + 6_000);
    expect(catchUp!.handedAt).toBeLessThan(thirdSlot);
    // the third slot was 1.5 s away from the catch-up: skipped; the fourth is the next firing
    expect(next!.slot).toBe(thirdSlot + 6_000);
  }, 90_000);

  it('refuses what the limits forbid as tool errors, and /tasks lists the chat tasks', async ({ harness }) => {
    const { environment, start, updates, say, callTool } = harness;
    const service = await start();
    const chatId = 7104;
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'x', every_seconds: 1 })).toContain('the shortest allowed interval is 2 seconds');
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'x', at: '2020-01-01T00:00:00Z' })).toContain('is in the past');
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'x', cron: 'every day' })).toContain('not a 5-field cron expression');
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'x', cron: '0 9 * * *', every_seconds: 60 })).toContain('exactly one of');
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'x', cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toContain('Unknown time zone');
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'morning news', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' })).toContain('Scheduled task');
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'new year', at: '2099-01-01T00:00:00Z' })).toContain('Scheduled task');
    expect(await callTool(service.url, chatId, 'schedule_task', { prompt: 'one more', every_seconds: 3600 })).toContain('already has 2 scheduled tasks');
    // another chat has its own count
    expect(await callTool(service.url, 7105, 'schedule_task', { prompt: 'elsewhere', every_seconds: 3600 })).toContain('Scheduled task');

    const listed = await say(service.url, chatId, updates().command(chatId, chatId, 'tasks'));
    const tasks = await environment.sql`SELECT id, next_run_at FROM scheduled_tasks WHERE chat_key LIKE ${`%:${chatId}`} ORDER BY created_at`;
    expect(tasks).toHaveLength(2);
    expect(listed).toContain(`${tasks[0]!.id}: cron "0 9 * * 1-5" (Europe/Berlin)`);
    expect(listed).toContain(`${tasks[1]!.id}: once at 2099-01-01T00:00:00.000Z`);
    expect(listed).toContain('morning news');
    expect(listed).not.toContain('elsewhere');
    const nextRun = new Date(tasks[0]!.next_run_at);
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(nextRun)).toBe('09:00');

    expect(await callTool(service.url, chatId, 'list_tasks', {})).toContain(tasks[1]!.id);
    expect(await callTool(service.url, chatId, 'cancel_task', { id: tasks[1]!.id })).toBe(`Cancelled task ${tasks[1]!.id}.`);
    expect(await callTool(service.url, 7105, 'cancel_task', { id: tasks[0]!.id })).toContain(`No scheduled task ${tasks[0]!.id} in this chat`);
    expect(await say(service.url, chatId, updates().command(chatId, chatId, 'tasks', { args: 'cancel nope' }))).toBe('No scheduled task nope in this chat.');
    expect(await say(service.url, chatId, updates().command(chatId, chatId, 'tasks'))).not.toContain(tasks[1]!.id);
  }, 90_000);

  it('a failed delivery is recorded on the task, logged and counted; a chat that removed the bot pauses its task', async ({ harness }) => {
    const { environment, start, updates, say, callTool, taskOf } = harness;
    const service = await start();
    const groupId = -7106;
    await callTool(service.url, groupId, 'schedule_task', { prompt: 'group PING-D', every_seconds: 2 }, 7106);
    const task = await taskOf(groupId);
    environment.telegram.failNext('sendMessage', { status: 403, description: 'Forbidden: bot was kicked from the supergroup chat', times: 1 });
    await waitFor(async () => (await taskOf(groupId)).status === 'paused', { timeoutMs: 30_000, what: 'the task paused' });
    const paused = await taskOf(groupId);
    expect(paused.last_outcome).toBe('delivery failed');
    expect(paused.last_error).toContain('bot was kicked');
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/bot_scheduled_delivery_failures_total\{channel="telegram"\} 1/);
    expect(service.output()).toContain('scheduled task answer could not be delivered');
    const queue = new Queue('schedules', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
    expect(await queue.getJobScheduler(task.id)).toBeUndefined();
    await queue.close();
    const listed = await say(service.url, groupId, updates().command(groupId, 7106, 'tasks'));
    expect(listed).toContain(`${task.id}: every 2 s · paused`);
    expect(listed).toContain('delivery failed (delivery failed: ');
  }, 90_000);

  it('a firing whose turn was running on a process that died is answered once by another', async ({ harness }) => {
    const { environment, start, answersWith, callTool, taskOf } = harness;
    const first = await start();
    const chatId = 7107;
    const at = new Date(Date.now() + 4_000).toISOString();
    await callTool(first.url, chatId, 'schedule_task', { prompt: 'survive PING-E', at });
    environment.openai.settings.latencyMs = 60_000;
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 20_000);
    await start({ ROLE: 'worker' });
    await first.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    await waitFor(() => answersWith(chatId, 'PING-E').length > 0, { timeoutMs: 30_000, what: 'the answer after takeover' });
    await sleep(2_500); // a second answer would arrive within a lease
    expect(answersWith(chatId, 'PING-E')).toHaveLength(1);
    const fired = await environment.sql`SELECT inbound_key FROM messages WHERE inbound_key LIKE 'schedule.%'`;
    expect(fired).toHaveLength(1);
    await waitFor(async () => (await taskOf(chatId)).last_outcome === 'completed', { what: 'the outcome recorded' });
    expect((await taskOf(chatId)).status).toBe('done');
  }, 90_000);

  it("a firing in a group waits for the group's slot like any message (GROUP_MAX_CONCURRENT=1) and answers into the group", async ({ harness }) => {
    const { environment, start, updates, answersWith, callTool, taskOf } = harness;
    const service = await start({ GROUP_MAX_CONCURRENT: '1' });
    const groupId = -7108;
    const at = new Date(Date.now() + 5_000).toISOString();
    await callTool(service.url, groupId, 'schedule_task', { prompt: 'group PING-F', at }, 7108);
    await sleep(Math.max(0, Date.parse(at) - Date.now() - 2_500));
    environment.openai.script.push({ parts: [{ type: 'text', text: 'slow member answer' }], latencyMs: 5_000 });
    await postTelegramUpdate(service.url, updates().mention(groupId, 7109, 'a slow question'));
    await waitFor(() => answersWith(groupId, 'PING-F').length > 0, { timeoutMs: 30_000, what: 'the firing answer' });
    const memberAnswer = answersWith(groupId, 'slow member answer')[0]!;
    const firingCall = environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages.at(-1)).includes('PING-F'))!;
    // the firing was due while the member's turn held the group's only slot: its model call came after that answer
    expect(firingCall.receivedAt).toBeGreaterThanOrEqual(memberAnswer.at);
    expect(JSON.stringify(firingCall.body.messages.at(-1))).toContain('[Scheduled task ');
    expect((await taskOf(groupId)).last_run_at.getTime()).toBeLessThan(memberAnswer.at);
  }, 90_000);

  it('a firing the model answers with NO_REPLY sends nothing and is recorded as silent', async ({ harness }) => {
    const { environment, start, sentTo, callTool, taskOf } = harness;
    const service = await start();
    const chatId = 7110;
    await callTool(service.url, chatId, 'schedule_task', { prompt: 'quiet PING-G', at: new Date(Date.now() + 3_000).toISOString() });
    const sentBefore = sentTo(chatId).length;
    environment.openai.script.respondWith((_request, text) => (text.includes('PING-G') ? 'NO_REPLY' : `You said: ${text}`));
    await waitFor(async () => (await taskOf(chatId)).last_outcome === 'silent', { timeoutMs: 20_000, what: 'a silent outcome' });
    expect(sentTo(chatId)).toHaveLength(sentBefore);
    expect(environment.openai.modelCalls.some((call) => JSON.stringify(call.body.messages.at(-1)).includes('PING-G'))).toBe(true);
  }, 60_000);
});
