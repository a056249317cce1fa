import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackDouble } from '../doubles/slack-double.js';
import { createE2eEnvironment, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { modelAsked as modelAskedOf } from './support/model-asked.js';

/**
 * `/model` for a whole chat (MODEL_CHOICE=chat, CONTRACT §20) through the service: a choice made in one Telegram
 * topic or Slack thread is the model of every session of that chat (one answered before the choice, one started
 * after it), not of another chat; a refused model changes nothing; the choice survives a restart, /status says it is
 * the chat's; choosing the agent's own model clears it. model-choice.test.ts covers the per-session default.
 */
let environment: E2eEnvironment;
let slack: SlackDouble;
let service: ServiceProcess;

const start = async () => {
  service = await startServiceProcess(environment.env({ LLM_MODELS: 'gpt-4o, gpt-4.1-mini', MODEL_CHOICE: 'chat', LLM_STREAM: 'false', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw', ...environment.slackEnv() }));
};

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true });
  slack = environment.slack!;
  await start();
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const modelAsked = (text: string) => modelAskedOf(environment, text);

describe('/model for the whole chat in Telegram forum topics', () => {
  const forum = (chatId: number) => ({ id: chatId, type: 'supergroup', title: `Forum ${chatId}`, is_forum: true });
  const topic = (id: number) => ({ message_thread_id: id, is_topic_message: true });
  const chatId = -100801;
  const otherChatId = -100802;
  const chatKey = () => `agent:main:telegram:${environment.telegram.botId}:group:${chatId}`;
  const messages = (chat: number) => environment.telegram.visibleMessages(chat);

  /** A command typed in a topic (no mention needed), and the bot's answer there. */
  const command = async (text: string, topicId: number, startsWith: string) => {
    const before = messages(chatId).length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.groupText(chatId, 8001, text, { chat: forum(chatId), ...topic(topicId) }));
    const answer = await waitFor(() => messages(chatId).slice(before).find((message) => message.text.startsWith(startsWith)), { what: `the answer to "${text}"` });
    expect(answer.threadId).toBe(topicId);
    return answer.text;
  };
  /** A mention in a topic (undefined: the General topic) of a chat, answered; the model it was asked of. */
  const ask = async (text: string, chat: number, topicId?: number) => {
    const name = `@${environment.telegram.botUsername}`;
    const before = messages(chat).length;
    await postTelegramUpdate(
      service.url,
      environment.telegram.makeUpdate.groupText(chat, 8001, `${name} ${text}`, { chat: forum(chat), entities: [{ type: 'mention', offset: 0, length: name.length }], ...(topicId ? topic(topicId) : {}) }),
    );
    await waitFor(() => messages(chat).slice(before).find((message) => message.text.includes(text)), { what: `the answer to "${text}"` });
    return modelAsked(text);
  };

  it('a choice in one topic is every topic’s, one answered before it and one opened after it, not another chat’s', async () => {
    // answered before the choice: its session is in the worker's cache, at a version the choice must move on
    expect(await ask('before the choice in topic 79', chatId, 79)).toBe('gpt-4o-mini');

    expect(await command('/model gpt-4o', 77, 'Model for')).toBe(
      'Model for this whole chat (every topic and thread of it): openai/gpt-4o (medium price ($2.5 in, $10 out per million tokens)). The next answer uses it.',
    );
    const rows = await environment.sql`SELECT chat_key, model FROM chat_models WHERE chat_key = ${chatKey()}`;
    expect(rows.map((row) => [row.chat_key, row.model])).toEqual([[chatKey(), 'openai:gpt-4o']]);

    expect(await ask('in topic 77 where it was chosen', chatId, 77)).toBe('gpt-4o');
    expect(await ask('in topic 79 answered before', chatId, 79)).toBe('gpt-4o');
    expect(await ask('in topic 78 never seen before', chatId, 78)).toBe('gpt-4o');
    expect(await ask('in the General topic', chatId)).toBe('gpt-4o');
    expect(await ask('in another forum', otherChatId, 77)).toBe('gpt-4o-mini');
  });

  it('refuses a model the agent does not allow, and the chat keeps its choice', async () => {
    const refused = await command('/model claude-opus-4-1', 78, '"claude-opus-4-1"');
    expect(refused).toContain('"claude-opus-4-1" is not a model this chat may use. Choose one of:');
    expect(refused).toContain('2. openai/gpt-4o: medium price ($2.5 in, $10 out per million tokens) (in use)');
    expect(await ask('after the refusal', chatId, 79)).toBe('gpt-4o');
  });

  it('survives a restart: a topic opened after it uses the chat’s choice, /status says it is the chat’s; the agent’s own model clears it', async () => {
    await service.stop();
    await start();
    expect(await ask('after the restart in topic 80', chatId, 80)).toBe('gpt-4o');
    expect(await ask('after the restart in topic 77', chatId, 77)).toBe('gpt-4o');
    const status = await command('/status', 78, 'Model:');
    expect(status).toMatch(/^Model: openai\/gpt-4o \(chosen for the whole chat with \/model: the chat's\)$/m);
    expect(await command('/model', 80, 'Models for this chat')).toContain('2. openai/gpt-4o: medium price ($2.5 in, $10 out per million tokens) (in use)');
    const consolePage = async (sessionKey: string) =>
      (await fetch(`${service.url}/admin/sessions/${encodeURIComponent(sessionKey)}`, { headers: { authorization: `Basic ${btoa('ops:pw')}` } })).text();
    expect(await consolePage(`${chatKey()}:topic:80`)).toContain('<dt>Model</dt><dd><code>openai:gpt-4o</code> (chosen for the whole chat with /model)</dd>');
    // the turn is stored after its answer is sent
    const spans = await waitFor(async () => {
      const rows = await environment.sql`
        SELECT run_spans.name FROM run_spans JOIN runs ON runs.id = run_spans.run_id JOIN sessions ON sessions.id = runs.session_id
         WHERE sessions.key = ${`${chatKey()}:topic:80`} AND run_spans.kind = 'llm'`;
      return rows.length > 0 ? rows : undefined;
    });
    expect(spans.map((span) => span.name)).toEqual(['openai:gpt-4o']);

    expect(await command('/model gpt-4o-mini', 80, 'Model for')).toMatch(/^Model for this whole chat \(every topic and thread of it\): openai\/gpt-4o-mini /);
    expect(await environment.sql`SELECT model FROM chat_models WHERE chat_key = ${chatKey()}`).toHaveLength(0);
    expect(await ask('after clearing, in topic 77', chatId, 77)).toBe('gpt-4o-mini');
    expect(await ask('after clearing, in topic 80', chatId, 80)).toBe('gpt-4o-mini');
    expect(await command('/status', 78, 'Model:')).toMatch(/^Model: openai\/gpt-4o-mini$/m);
    expect(await consolePage(`${chatKey()}:topic:80`)).toContain("<dt>Model</dt><dd>the agent's own</dd>");
  });
});

describe('/model for the whole chat in Slack threads', () => {
  const user = 'U0CHATMODEL';
  const answered = (channel: string, thread: string, count: number) =>
    waitFor(() => slack.callsOf('chat.postMessage').filter((call) => call.params.channel === channel && call.params.thread_ts === thread && !call.failed).length >= count, {
      what: `answer ${count} in ${channel} thread ${thread}`,
    });
  const mention = async (channel: string, text: string, thread?: string) => {
    const event = slack.makeEvent.mention(channel, user, text, thread ? { thread_ts: thread } : {});
    expect((await postSlack(service.url, slack.signedRequest('/webhooks/slack/events', event))).status).toBe(200);
    return event.event.ts as string;
  };

  it('`@bot model gpt-4.1-mini` in one thread is the model of a thread started later in the channel, not of another channel', async () => {
    const first = await mention('C0CHATMOD1', 'first thread');
    await answered('C0CHATMOD1', first, 1);
    expect(await modelAsked('first thread')).toBe('gpt-4o-mini');

    await mention('C0CHATMOD1', 'model gpt-4.1-mini', first);
    await answered('C0CHATMOD1', first, 2);
    const confirmation = slack.callsOf('chat.postMessage').findLast((call) => call.params.thread_ts === first)!;
    expect(String(confirmation.params.text)).toMatch(/^Model for this whole chat \(every topic and thread of it\): openai\/gpt-4\.1-mini/);

    const second = await mention('C0CHATMOD1', 'second thread');
    await answered('C0CHATMOD1', second, 1);
    expect(await modelAsked('second thread')).toBe('gpt-4.1-mini');
    const elsewhere = await mention('C0CHATMOD2', 'another channel');
    await answered('C0CHATMOD2', elsewhere, 1);
    expect(await modelAsked('another channel')).toBe('gpt-4o-mini');
  });

  it('the /model slash command in a channel (no thread of its own) chooses for the channel’s threads', async () => {
    const fields = slack.makeEvent.slashCommand('/model', { channel: 'C0CHATMOD3', user, text: 'gpt-4o' });
    expect((await postSlack(service.url, slack.signedRequest('/webhooks/slack/commands', fields, { form: true }))).status).toBe(200);
    await waitFor(() => slack.callsOf('chat.postMessage').find((call) => call.params.channel === 'C0CHATMOD3' && String(call.params.text).startsWith('Model for this whole chat')), {
      what: 'the choice confirmed in the channel',
    });
    const thread = await mention('C0CHATMOD3', 'a thread after the slash command');
    await answered('C0CHATMOD3', thread, 1);
    expect(await modelAsked('a thread after the slash command')).toBe('gpt-4o');
  });
});
