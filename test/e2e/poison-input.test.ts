import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import type { TelegramDouble } from '../doubles/telegram-double.js';
import { createE2eEnvironment, postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Bad but authentic data through the built service (the probe of issue 9, item 7): every poison payload
 * is either refused with a 4xx (wrongly typed fields: retrying cannot help) or answered (well-formed text,
 * a sane date), and the next normal message of the same chat is answered, so no chat is wedged.
 */
let environment: E2eEnvironment;
let telegram: TelegramDouble;
let slack: SlackDouble;
let feishu: FeishuDouble;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true, feishu: true });
  ({ telegram } = environment);
  slack = environment.slack!;
  feishu = environment.feishu!;
  // one message, one answer: no live drafts to tell apart from the answer
  service = await startServiceProcess(environment.env({ LLM_STREAM: 'false', ...environment.slackEnv(), ...environment.feishuEnv() }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

type Json = Record<string, any>;
const copy = <T>(value: T): Json => structuredClone(value) as Json;

const telegramAnswers = (chatId: number) =>
  telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));
const slackAnswers = (channel: string) => [...slack.messages.values()].filter((message) => message.channel === channel && !message.deleted).map((message) => message.text);
const feishuAnswers = (messageId: string) =>
  [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted).map((message) => JSON.stringify(message.content));

/** The statuses of the session's runs once `count` are stored (a run is stored just after its answer is sent). */
async function runStatuses(sessionKeyPattern: string, count: number): Promise<string[]> {
  const statuses = async () => {
    const rows = await environment.sql`SELECT r.status FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${sessionKeyPattern} ORDER BY r.started_at`;
    return rows.map((row) => String(row.status));
  };
  await waitFor(async () => (await statuses()).length >= count, { what: `${count} runs of ${sessionKeyPattern}` });
  await new Promise((resolve) => setTimeout(resolve, 200));
  return statuses();
}

describe('poison payloads, end to end', () => {
  describe('Telegram', () => {
    /** Posts the poison, then a normal message in the same chat; both the poison's fate and the next answer are checked. */
    async function poisonThenNormal(chatId: number, poison: Json, expectedStatus: number, expectedPoisonAnswer?: string) {
      expect((await postTelegramUpdate(service.url, poison)).status).toBe(expectedStatus);
      if (expectedPoisonAnswer !== undefined) {
        await waitFor(() => telegramAnswers(chatId).includes(expectedPoisonAnswer), { what: `the answer to the poison in chat ${chatId}` });
      }
      const normal = telegram.makeUpdate.privateText(chatId, `normal after poison ${chatId}`);
      expect((await postTelegramUpdate(service.url, normal)).status).toBe(200);
      await waitFor(() => telegramAnswers(chatId).includes(`You said: normal after poison ${chatId}`), { what: `the next answer in chat ${chatId}`, timeoutMs: 20_000 });
      const expected = expectedPoisonAnswer !== undefined ? ['completed', 'completed'] : ['completed'];
      expect(await runStatuses(`%:telegram:%:dm:${chatId}`, expected.length)).toEqual(expected);
    }

    it('answers a lone surrogate (and NUL) in the text, well formed', async () => {
      const poison = copy(telegram.makeUpdate.privateText(5101, 'x'));
      poison.message.text = 'lone \uD800 surrogate\u0000';
      poison.message.from.first_name = 'Poi\uDC00son';
      await poisonThenNormal(5101, poison, 200, 'You said: lone \uFFFD surrogate\uFFFD');
    });

    it('answers a message dated 1e15, dated when received', async () => {
      const before = Date.now();
      const poison = copy(telegram.makeUpdate.privateText(5102, 'from the far future'));
      poison.message.date = 1e15;
      await poisonThenNormal(5102, poison, 200, 'You said: from the far future');
      const [stored] = await environment.sql`SELECT m.created_at FROM messages m WHERE m.inbound_key = ${`telegram:${telegram.botId}:5102:${poison.message.message_id}`}`;
      expect(new Date(stored!.created_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(new Date(stored!.created_at).getTime()).toBeLessThanOrEqual(Date.now());
    });

    it('refuses wrongly typed fields with 400 (text a number, chat id a string, sender an array)', async () => {
      const numberText = copy(telegram.makeUpdate.privateText(5103, 'x'));
      numberText.message.text = 12345;
      await poisonThenNormal(5103, numberText, 400);
      const stringChatId = copy(telegram.makeUpdate.privateText(5104, 'x'));
      stringChatId.message.chat.id = '5104';
      await poisonThenNormal(5104, stringChatId, 400);
      const arraySender = copy(telegram.makeUpdate.privateText(5105, 'x'));
      arraySender.message.from = [5105];
      await poisonThenNormal(5105, arraySender, 400);
    });
  });

  describe('Slack', () => {
    const EVENTS = '/webhooks/slack/events';
    async function poisonThenNormal(user: string, poison: Json, expectedStatus: number, expectedPoisonAnswer?: string) {
      const channel = `D${user.slice(1)}`;
      expect((await postSlack(service.url, slack.signedRequest(EVENTS, poison))).status).toBe(expectedStatus);
      if (expectedPoisonAnswer !== undefined) await waitFor(() => slackAnswers(channel).includes(expectedPoisonAnswer), { what: 'the answer to the poison' });
      expect((await postSlack(service.url, slack.signedRequest(EVENTS, slack.makeEvent.dm(user, `normal after poison ${user}`)))).status).toBe(200);
      await waitFor(() => slackAnswers(channel).includes(`You said: normal after poison ${user}`), { what: `the next answer in ${channel}`, timeoutMs: 20_000 });
    }

    it('refuses a message whose `user` is an object with 400', async () => {
      const poison = copy(slack.makeEvent.dm('U0POISON1', 'who am I?'));
      poison.event.user = { id: 'U0POISON1', name: 'object user' };
      await poisonThenNormal('U0POISON1', poison, 400);
      expect(await runStatuses('%:slack:%:dm:U0POISON1', 1)).toEqual(['completed']);
    });

    it('refuses a text that is a number with 400, and answers lone surrogates and a ts far ahead', async () => {
      const numberText = copy(slack.makeEvent.dm('U0POISON2', 'x'));
      numberText.event.text = 42;
      await poisonThenNormal('U0POISON2', numberText, 400);
      const surrogate = copy(slack.makeEvent.dm('U0POISON3', 'x'));
      surrogate.event.text = 'lone \uD800 here';
      surrogate.event.ts = '99999999999.000100';
      await poisonThenNormal('U0POISON3', surrogate, 200, 'You said: lone \uFFFD here');
      expect(await runStatuses('%:slack:%:dm:U0POISON3', 2)).toEqual(['completed', 'completed']);
    });
  });

  describe('Feishu', () => {
    async function poisonThenNormal(chatId: string, userOpenId: string, poison: Json, expectedStatus: number, expectAnswer: boolean) {
      expect((await postFeishu(service.url, feishu.delivery(poison))).status).toBe(expectedStatus);
      const poisonId = String(poison.event.message.message_id);
      if (expectAnswer) await waitFor(() => feishuAnswers(poisonId).length > 0, { what: 'the answer to the poison' });
      const normal = feishu.events.p2pText(`normal after poison ${chatId}`, { chatId, userOpenId });
      expect((await postFeishu(service.url, feishu.delivery(normal))).status).toBe(200);
      await waitFor(() => feishuAnswers(normal.event.message.message_id).some((text) => text.includes(`normal after poison ${chatId}`)), {
        what: `the next answer in ${chatId}`,
        timeoutMs: 20_000,
      });
      const expected = expectAnswer ? ['completed', 'completed'] : ['completed'];
      expect(await runStatuses(`%:feishu:%:dm:${userOpenId}`, expected.length)).toEqual(expected);
    }

    it('answers a message with create_time 1e30, dated when received', async () => {
      const poison = copy(feishu.events.p2pText('from the year 1e30', { chatId: 'oc_poison_1', userOpenId: 'ou_poison_1' }));
      poison.event.message.create_time = '1e30';
      await poisonThenNormal('oc_poison_1', 'ou_poison_1', poison, 200, true);
    });

    it('answers lone surrogates in the content, and refuses a message_id that is a number with 400', async () => {
      const surrogate = copy(feishu.events.p2pText('x', { chatId: 'oc_poison_2', userOpenId: 'ou_poison_2' }));
      surrogate.event.message.content = JSON.stringify({ text: 'lone \uDBFF end' });
      await poisonThenNormal('oc_poison_2', 'ou_poison_2', surrogate, 200, true);
      const numberId = copy(feishu.events.p2pText('x', { chatId: 'oc_poison_3', userOpenId: 'ou_poison_3' }));
      numberId.event.message.message_id = 777;
      await poisonThenNormal('oc_poison_3', 'ou_poison_3', numberId, 400, false);
    });
  });

  it('stays healthy', async () => {
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(service.child.exitCode).toBeNull();
  });
});
