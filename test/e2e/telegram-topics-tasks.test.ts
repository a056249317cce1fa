import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Scheduled tasks of Telegram forum topics through the built service: a task answers in the topic that made it,
 * `/tasks` in a topic shows (and cancels) that topic's tasks only while the chat itself ("General") shows every
 * one, a topic closed pauses its tasks and reopened resumes them, and a topic Telegram refuses (deleted) gets
 * that firing's answer in the main chat and its tasks paused.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ SCHEDULE_MIN_INTERVAL_S: '2', LLM_STREAM: 'false' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const FORUM = { type: 'supergroup', title: 'Forum', is_forum: true };
const inTopic = (threadId: number) => ({ message_thread_id: threadId, is_topic_message: true });

function mention(chatId: number, userId: number, text: string, topic: object = {}) {
  const handle = `@${environment.telegram.botUsername}`;
  return environment.telegram.makeUpdate.groupText(chatId, userId, `${handle} ${text}`, {
    chat: { id: chatId, ...FORUM },
    entities: [{ type: 'mention', offset: 0, length: handle.length }],
    ...topic,
  });
}

function command(chatId: number, userId: number, text: string, topic: object = {}) {
  const head = text.split(' ')[0]!;
  return environment.telegram.makeUpdate.groupText(chatId, userId, text, { chat: { id: chatId, ...FORUM }, entities: [{ type: 'bot_command', offset: 0, length: head.length }], ...topic });
}

async function tasksOf(chatId: number) {
  return environment.sql`SELECT * FROM scheduled_tasks WHERE conversation->>'chatId' = ${String(chatId)} ORDER BY created_at`;
}

async function isArmed(taskId: string): Promise<boolean> {
  const queue = new Queue('schedules', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
  try {
    return (await queue.getJobScheduler(taskId)) !== undefined;
  } finally {
    await queue.close();
  }
}

const visibleIn = (chatId: number) => environment.telegram.visibleMessages(chatId);

/** The newest answer in `chatId` containing `marker` after `after` messages were already there. */
const answerAfter = (chatId: number, marker: string, after: number) =>
  waitFor(() => visibleIn(chatId).slice(after).find((message) => message.text.includes(marker)), { timeoutMs: 20_000, what: `an answer with ${marker}` });

describe('Telegram forum topics: scheduled tasks', () => {
  it('fires into its topic; /tasks acts on the topic only; a closed topic pauses its tasks, reopened they run again', async () => {
    const chatId = -100701;
    const { telegram, openai } = environment;
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'topic PING-A', every_seconds: 3 }), 'Scheduled in the topic.');
    await postTelegramUpdate(service.url, mention(chatId, 7001, 'every three seconds please', inTopic(42)));
    const fired = await answerAfter(chatId, 'PING-A', 0);
    expect(fired.threadId).toBe(42);
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'general PING-B', cron: '0 9 * * *' }), 'Scheduled in General.');
    await postTelegramUpdate(service.url, mention(chatId, 7001, 'every morning please'));
    await waitFor(async () => ((await tasksOf(chatId)).length === 2 ? true : undefined), { what: 'both tasks' });
    const [topicTask, generalTask] = await tasksOf(chatId);
    expect(topicTask).toMatchObject({ thread_kind: 'topic', session_key: expect.stringMatching(/:group:-100701:topic:42$/) });
    expect(generalTask!.conversation.threadId).toBeUndefined();

    // /tasks in the topic: that topic's task only, answered in the topic; in General: both, the topic's marked
    let before = visibleIn(chatId).length;
    await postTelegramUpdate(service.url, command(chatId, 7001, '/tasks', inTopic(42)));
    const inTopicList = await answerAfter(chatId, 'Scheduled tasks', before);
    expect(inTopicList.threadId).toBe(42);
    expect(inTopicList.text).toContain(topicTask!.id);
    expect(inTopicList.text).not.toContain(generalTask!.id);
    before = visibleIn(chatId).length;
    await postTelegramUpdate(service.url, command(chatId, 7001, '/tasks'));
    const inGeneral = await answerAfter(chatId, 'Scheduled tasks', before);
    expect(inGeneral.threadId).toBeUndefined();
    expect(inGeneral.text).toContain(`${generalTask!.id}:`);
    expect(inGeneral.text).toMatch(new RegExp(`${topicTask!.id}: .*in topic 42`));
    // a topic cannot cancel General's task
    before = visibleIn(chatId).length;
    await postTelegramUpdate(service.url, command(chatId, 7001, `/tasks cancel ${generalTask!.id}`, inTopic(42)));
    expect((await answerAfter(chatId, 'No scheduled task', before)).threadId).toBe(42);
    expect((await tasksOf(chatId))[1]!.status).toBe('active');

    // closed: the topic's task pauses, General's goes on
    await postTelegramUpdate(service.url, telegram.makeUpdate.topicClosed(chatId, 42, 7001));
    await waitFor(async () => ((await tasksOf(chatId))[0]!.status === 'paused' ? true : undefined), { what: 'the topic task paused' });
    const [closed, general] = await tasksOf(chatId);
    expect(closed).toMatchObject({ paused_reason: 'the topic is closed or gone (topic closed)', next_run_at: null });
    expect(general!.status).toBe('active');
    expect(await isArmed(closed!.id)).toBe(false);
    expect(await isArmed(general!.id)).toBe(true);

    // reopened: it runs again, into the topic
    before = visibleIn(chatId).length;
    await postTelegramUpdate(service.url, telegram.makeUpdate.topicClosed(chatId, 42, 7001, true));
    await waitFor(async () => ((await tasksOf(chatId))[0]!.status === 'active' ? true : undefined), { what: 'the topic task resumed' });
    expect(await isArmed(closed!.id)).toBe(true);
    expect((await answerAfter(chatId, 'PING-A', before)).threadId).toBe(42);
  }, 90_000);

  it('a topic Telegram refuses (deleted): that firing answers in the main chat, once, and the topic’s tasks pause', async () => {
    const chatId = -100702;
    const { telegram, openai } = environment;
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'doomed PING-C', every_seconds: 3 }), 'Scheduled.');
    await postTelegramUpdate(service.url, mention(chatId, 7002, 'every three seconds please', inTopic(51)));
    expect((await answerAfter(chatId, 'PING-C', 0)).threadId).toBe(51);

    telegram.refuseThread(chatId, 51);
    const before = visibleIn(chatId).length;
    const fallback = await answerAfter(chatId, 'PING-C', before);
    expect(fallback.threadId).toBeUndefined();
    await waitFor(async () => {
      const [paused] = await tasksOf(chatId);
      return paused!.status === 'paused' && paused!.last_outcome === 'completed' ? true : undefined;
    }, { what: 'the task paused, the firing that fell back recorded' });
    const [task] = await tasksOf(chatId);
    expect(task).toMatchObject({ paused_reason: 'the topic is closed or gone (topic not found)', last_outcome: 'completed' });
    expect(await isArmed(task!.id)).toBe(false);
    const [run] = await environment.sql`SELECT r.status, r.delivered_message_ids FROM runs r JOIN sessions s ON s.id = r.session_id
      WHERE s.key LIKE ${'%:group:-100702:topic:51'} ORDER BY r.started_at DESC LIMIT 1`;
    expect(run).toMatchObject({ status: 'completed', delivered_message_ids: [String(fallback.messageId)] });
    expect(visibleIn(chatId).slice(before).filter((message) => message.text.includes('PING-C'))).toHaveLength(1);
  }, 60_000);
});
