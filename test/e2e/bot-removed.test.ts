import { Queue } from 'bullmq';
import { describe, expect, it as base } from 'vitest';
import { feishuBotMembership, slackMembership, telegramMyChatMember } from '../doubles/membership-events.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * The platform says the bot left a chat (Telegram my_chat_member, Slack member_left_channel / app_uninstalled,
 * Feishu im.chat.member.bot.deleted_v1): the chat's tasks pause and its waiting work is dropped at once, and
 * the tasks resume when the bot is added back.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LIMITS = { SCHEDULE_MIN_INTERVAL_S: '2', LLM_STREAM: 'false' };

/**
 * One test's environment and service, with the helpers that read them. The tests wait for schedules and for the
 * silence after a removal, so they run side by side (`describe.concurrent`), each with its own doubles, database,
 * queue prefix and service process.
 */
function createScene() {
  const scene = {
    environment: undefined as E2eEnvironment | undefined,
    service: undefined as ServiceProcess | undefined,
    async open(options: Parameters<typeof createE2eEnvironment>[0] = {}): Promise<E2eEnvironment> {
      scene.environment = await createE2eEnvironment(options);
      return scene.environment;
    },
    async taskIn(chatId: string | number) {
      const [task] = await scene.environment!.sql`SELECT * FROM scheduled_tasks WHERE conversation->>'chatId' = ${String(chatId)} ORDER BY created_at DESC LIMIT 1`;
      return task;
    },
    async isArmed(taskId: string): Promise<boolean> {
      const queue = new Queue('schedules', { connection: scene.environment!.redis, prefix: scene.environment!.keys.bullmqPrefix });
      try {
        return (await queue.getJobScheduler(taskId)) !== undefined;
      } finally {
        await queue.close();
      }
    },
    async membershipMetric(channel: string, change: string) {
      const text = await (await fetch(`${scene.service!.url}/metrics`)).text();
      return Number(new RegExp(`bot_chat_membership_changes_total\\{channel="${channel}",change="${change}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    },
    async close() {
      await scene.service?.stop();
      await scene.environment?.close();
    },
  };
  return scene;
}

const it = base.extend<{ scene: ReturnType<typeof createScene> }>({
  // vitest reads which fixtures a fixture needs from this (empty) object pattern
  scene: async ({}, use) => {
    const scene = createScene();
    try {
      await use(scene);
    } finally {
      await scene.close();
    }
  },
});

describe.concurrent('the platform says the bot left (Telegram my_chat_member)', () => {
  it('kicked from a group: its tasks pause and its waiting messages are dropped at once; added back, the tasks run again', async ({ scene }) => {
    const { taskIn, isArmed, membershipMetric } = scene;
    const environment = await scene.open();
    const { telegram, openai } = environment;
    const service = (scene.service = await startServiceProcess(environment.env({ ...LIMITS, GROUP_MAX_CONCURRENT: '1' })));
    const groupId = -8201;
    const sentTo = () => telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === groupId && !call.failed);
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'group PING-R', every_seconds: 3 }), 'Scheduled.');
    await postTelegramUpdate(service.url, telegram.makeUpdate.mention(groupId, 8201, 'every three seconds please'));
    await waitFor(() => sentTo().some((call) => String(call.params.text).includes('PING-R')), { timeoutMs: 20_000, what: 'a firing answered' });
    const task = (await taskIn(groupId))!;

    // a member's slow turn holds the group's only slot; a second question waits behind it
    openai.script.respondWith((_request, text) => (text.includes('SLOW-QUESTION') ? { parts: [{ type: 'text', text: 'slow answer' }], latencyMs: 8_000 } : `You said: ${text}`));
    await postTelegramUpdate(service.url, telegram.makeUpdate.mention(groupId, 8202, 'SLOW-QUESTION'));
    const asked = (marker: string) => openai.modelCalls.some((call) => JSON.stringify(call.body.messages.at(-1)).includes(marker));
    await openai.waitFor(() => asked('SLOW-QUESTION'), 20_000);
    await postTelegramUpdate(service.url, telegram.makeUpdate.mention(groupId, 8203, 'WAITING-QUESTION'));
    await sleep(300);

    const kicked = await postTelegramUpdate(service.url, telegramMyChatMember(telegram, groupId, { from: 'member', to: 'kicked', byUserId: 8202 }));
    expect(kicked.status).toBe(200);
    await waitFor(async () => (await taskIn(groupId))!.status === 'paused', { what: 'the task paused' });
    expect(await taskIn(groupId)).toMatchObject({ status: 'paused', paused_reason: 'the bot was removed from the chat (kicked)', next_run_at: null });
    expect(await isArmed(task.id)).toBe(false);
    // the child's output reaches this process through a pipe, a moment after the webhook's answer
    const running = service;
    await waitFor(() => running.output().includes('the bot was removed from the chat'), { what: 'the removal logged' });
    expect(service.output()).toContain('the bot was removed from the chat: its scheduled tasks paused and its waiting work dropped');
    expect(await membershipMetric('telegram', 'removed')).toBe(1);
    // nothing more is sent or asked: no firing, no answer to the waiting question, the slow turn stopped
    const sentWhenKicked = sentTo().length;
    await sleep(9_000);
    expect(sentTo()).toHaveLength(sentWhenKicked);
    expect(asked('WAITING-QUESTION')).toBe(false);
    expect(sentTo().some((call) => call.params.text === 'slow answer')).toBe(false);

    const added = await postTelegramUpdate(service.url, telegramMyChatMember(telegram, groupId, { from: 'left', to: 'member', byUserId: 8202 }));
    expect(added.status).toBe(200);
    await waitFor(async () => (await taskIn(groupId))!.status === 'active', { what: 'the task resumed' });
    expect((await taskIn(groupId))!.paused_reason).toBeNull();
    expect(await isArmed(task.id)).toBe(true);
    await waitFor(() => sentTo().length > sentWhenKicked && String(sentTo().at(-1)!.params.text).includes('PING-R'), { timeoutMs: 20_000, what: 'a firing after the bot came back' });
    expect(await membershipMetric('telegram', 'added')).toBe(1);
  }, 90_000);

  it('blocked by the user in a DM: the DM task pauses; unblocked, it resumes; a malformed my_chat_member is dropped with 200', async ({ scene }) => {
    const { taskIn, isArmed } = scene;
    const environment = await scene.open();
    const { telegram, openai } = environment;
    const service = (scene.service = await startServiceProcess(environment.env(LIMITS)));
    const userId = 8205;
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'dm PING-S', cron: '0 9 * * *' }), 'Scheduled.');
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(userId, 'every morning please'));
    await waitFor(async () => (await taskIn(userId)) !== undefined, { what: 'the task' });

    expect((await postTelegramUpdate(service.url, { update_id: 99_999, my_chat_member: { chat: 'nope' } })).status).toBe(200);
    await postTelegramUpdate(service.url, telegramMyChatMember(telegram, userId, { from: 'member', to: 'kicked' }));
    await waitFor(async () => (await taskIn(userId))!.status === 'paused', { what: 'the task paused' });
    expect((await taskIn(userId))!.paused_reason).toBe('the user blocked the bot (blocked)');
    await postTelegramUpdate(service.url, telegramMyChatMember(telegram, userId, { from: 'kicked', to: 'member' }));
    await waitFor(async () => (await taskIn(userId))!.status === 'active', { what: 'the task resumed' });
    const resumed = (await taskIn(userId))!;
    expect(new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: resumed.timezone }).format(resumed.next_run_at)).toBe('09:00');
    expect(await isArmed(resumed.id)).toBe(true);
  }, 60_000);
});

describe.concurrent('the platform says the bot left (Slack events)', () => {
  it('member_left_channel for the bot pauses the channel\'s tasks, member_joined_channel resumes them, app_uninstalled pauses every task', async ({ scene }) => {
    const { taskIn, isArmed, membershipMetric } = scene;
    const environment = await scene.open({ slack: true });
    const slack = environment.slack!;
    const { openai } = environment;
    const service = (scene.service = await startServiceProcess(environment.env({ ...LIMITS, TELEGRAM_BOT_TOKEN: '', ...environment.slackEnv() })));
    const post = (body: unknown) => postSlack(service!.url, slack.signedRequest('/webhooks/slack/events', body));
    const bot = { botUserId: slack.botUserId, teamId: slack.teamId };
    const channel = 'C0REMOVED1';
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'channel PING-T', cron: '0 9 * * *' }), 'Scheduled.');
    await post(slack.makeEvent.mention(channel, 'U0MEMBER01', 'every morning please'));
    await waitFor(async () => (await taskIn(channel)) !== undefined, { what: 'the channel task' });
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'dm PING-T', cron: '0 10 * * *' }), 'Scheduled.');
    await post(slack.makeEvent.dm('U0MEMBER01', 'and here every morning'));
    await waitFor(async () => (await taskIn('D0MEMBER01')) !== undefined, { what: 'the DM task' });

    // someone else leaving is not the bot leaving
    expect((await post(slackMembership.otherLeft(bot, channel, 'U0MEMBER02'))).status).toBe(200);
    expect((await post(slackMembership.left(bot, channel))).status).toBe(200);
    await waitFor(async () => (await taskIn(channel))!.status === 'paused', { what: 'the channel task paused' });
    expect((await taskIn(channel))!.paused_reason).toBe('the bot was removed from the chat (left the channel)');
    expect((await taskIn('D0MEMBER01'))!.status).toBe('active');
    expect(await membershipMetric('slack', 'removed')).toBe(1);

    await post(slackMembership.joined(bot, channel));
    await waitFor(async () => (await taskIn(channel))!.status === 'active', { what: 'the channel task resumed' });
    expect(await isArmed((await taskIn(channel))!.id)).toBe(true);

    await post(slackMembership.uninstalled(bot));
    await waitFor(async () => (await taskIn('D0MEMBER01'))!.status === 'paused' && (await taskIn(channel))!.status === 'paused', { what: 'every task paused' });
    expect((await taskIn('D0MEMBER01'))!.paused_reason).toBe('the bot was removed from the workspace (the app was uninstalled)');
    expect(await isArmed((await taskIn('D0MEMBER01'))!.id)).toBe(false);
  }, 60_000);
});

describe.concurrent('the platform says the bot left (Feishu events)', () => {
  it('im.chat.member.bot.deleted_v1 pauses the group\'s tasks; im.chat.member.bot.added_v1 resumes them', async ({ scene }) => {
    const { taskIn, isArmed, membershipMetric } = scene;
    const environment = await scene.open({ feishu: true });
    const feishu = environment.feishu!;
    const { openai } = environment;
    const service = (scene.service = await startServiceProcess(environment.env({ ...LIMITS, TELEGRAM_BOT_TOKEN: '', ...environment.feishuEnv() })));
    const post = (body: unknown) => postFeishu(service!.url, feishu.delivery(body));
    openai.script.push(reply.toolCall('schedule_task', { prompt: 'group PING-U', cron: '0 9 * * *' }), 'Scheduled.');
    await post(feishu.events.groupMention('every morning please', { chatId: 'oc_removed_group' }));
    await waitFor(async () => (await taskIn('oc_removed_group')) !== undefined, { what: 'the group task' });
    const task = (await taskIn('oc_removed_group'))!;

    expect((await post(feishuBotMembership(feishu, 'deleted', 'oc_removed_group'))).status).toBe(200);
    await waitFor(async () => (await taskIn('oc_removed_group'))!.status === 'paused', { what: 'the task paused' });
    expect((await taskIn('oc_removed_group'))!.paused_reason).toBe('the bot was removed from the chat (removed from the group)');
    expect(await isArmed(task.id)).toBe(false);

    expect((await post(feishuBotMembership(feishu, 'added', 'oc_removed_group'))).status).toBe(200);
    await waitFor(async () => (await taskIn('oc_removed_group'))!.status === 'active', { what: 'the task resumed' });
    expect(await isArmed(task.id)).toBe(true);
    expect(await membershipMetric('feishu', 'removed')).toBe(1);
    expect(await membershipMetric('feishu', 'added')).toBe(1);
  }, 60_000);
});
