import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import { reply } from '../doubles/model-script.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import type { TelegramDouble } from '../doubles/telegram-double.js';
import { createE2eEnvironment, postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { progressLineChecks, telegramText } from './support/progress-line-checks.js';

/**
 * The progress line while tools run (CONTRACT §20), through one built service on all three platforms: the model
 * calls `list_directory` (label "Looking through files…"), and the model call after it is held (a 30 s latency the
 * test ends once the line was seen), so the doubles record the line while the turn is between tool and answer,
 * then its removal with the answer. The line is never stored, and a turn without tools makes no extra call.
 */
const LABEL = 'Looking through files…';
const ANSWER = 'Your workspace is empty.';
/** The answer after the tool is held until the test has seen the line (then `endPauses`). */
const toolThenHeldAnswer = () => [reply.toolCall('list_directory', {}), reply.text(ANSWER, { latencyMs: 30_000 })];

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
  service = await startServiceProcess(environment.env({ LLM_STREAM: 'true', ...environment.slackEnv(), ...environment.feishuEnv() }));
});

afterAll(async () => {
  environment?.openai.endPauses();
  await service?.stop();
  await environment?.close();
});

afterEach(() => {
  environment.openai.endPauses();
  environment.openai.script.clear();
});

const { runsOf, expectNotStored, releaseUntil } = progressLineChecks(() => environment, [LABEL]);

describe('progress lines while tools run', () => {
  it('Telegram: the live draft shows the line during the tool; the answer replaces it', async () => {
    const chatId = 7301;
    environment.openai.script.push(...toolThenHeldAnswer());
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, 'what is in my workspace?'));
    const textCalls = () => telegram.calls.filter((call) => (call.method === 'sendMessage' || call.method === 'editMessageText') && call.params.chat_id === chatId && !call.failed);
    await waitFor(() => textCalls().some((call) => telegramText(call.params.text) === LABEL), { what: 'the progress line', timeoutMs: 15_000 });
    expect(textCalls()[0]!.params.text).toBe(`<i>${LABEL}</i>`);
    await releaseUntil(() => telegram.visibleMessages(chatId).some((message) => message.text === ANSWER), 'the answer');
    // one message: the draft with the line became the answer, which has no line
    expect(telegram.visibleMessages(chatId).map((message) => message.text)).toEqual([ANSWER]);
    expect(telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed)).toHaveLength(1);
    expect(telegramText(textCalls().at(-1)!.params.text)).toBe(ANSWER);
    await expectNotStored(`%:dm:${chatId}`);
  });

  it('Slack DM: the live message shows the line; in an assistant thread the assistant status does, not the message', async () => {
    const posted = (channel: string) => slack.callsOf('chat.postMessage').filter((call) => call.params.channel === channel && !call.failed);
    const textCalls = (channel: string) => [...posted(channel), ...slack.callsOf('chat.update').filter((call) => call.params.channel === channel && !call.failed)];
    const visible = (channel: string) => [...slack.messages.values()].filter((message) => message.channel === channel && !message.deleted);
    const postEvent = (body: unknown) => postSlack(service.url, slack.signedRequest('/webhooks/slack/events', body));

    environment.openai.script.push(...toolThenHeldAnswer());
    await postEvent(slack.makeEvent.dm('U0PROG001', 'what is in my workspace?'));
    await waitFor(() => textCalls('D0PROG001').some((call) => call.params.text === `_${LABEL}_`), { what: 'the progress line', timeoutMs: 15_000 });
    await releaseUntil(() => visible('D0PROG001').some((message) => message.text === ANSWER), 'the answer');
    expect(visible('D0PROG001').map((message) => message.text)).toEqual([ANSWER]);
    expect(posted('D0PROG001')).toHaveLength(1);
    await expectNotStored('%:slack:%:dm:U0PROG001');

    const statuses = () => slack.callsOf('assistant.threads.setStatus').filter((call) => call.params.channel_id === 'D0PROG002').map((call) => call.params.status);
    environment.openai.script.push(...toolThenHeldAnswer());
    await postEvent(slack.makeEvent.dm('U0PROG002', 'what is in my workspace?', { thread_ts: '1700000000.000777' }));
    await waitFor(() => statuses().includes(LABEL), { what: 'the assistant status line', timeoutMs: 15_000 });
    await releaseUntil(() => visible('D0PROG002').some((message) => message.text === ANSWER), 'the answer');
    await waitFor(() => statuses().at(-1) === '', { what: 'the status cleared' });
    expect(statuses()[0]).toBe('is thinking…');
    expect(statuses()).toContain(LABEL);
    expect(textCalls('D0PROG002').some((call) => String(call.params.text).includes(LABEL))).toBe(false);
    expect(visible('D0PROG002').map((message) => message.text)).toEqual([ANSWER]);
  });

  it('Feishu: the card shows the line during the tool; the final card has only the answer', async () => {
    const event = feishu.events.p2pText('what is in my workspace?', { chatId: 'oc_progress_1', userOpenId: 'ou_progress_1' });
    const messageId = event.event.message.message_id;
    const cardText = (content: unknown) => (JSON.parse(String(content)) as { body: { elements: Array<{ content: string }> } }).body.elements.map((element) => element.content).join('\n');
    const cardCalls = () => feishu.calls.filter((call) => call.code === 0 && ((call.method === 'POST' && call.path === `/open-apis/im/v1/messages/${messageId}/reply`) || call.method === 'PATCH'));
    environment.openai.script.push(...toolThenHeldAnswer());
    await postFeishu(service.url, feishu.delivery(event));
    await waitFor(() => cardCalls().some((call) => cardText(call.body.content) === `*${LABEL}*`), { what: 'the progress line', timeoutMs: 15_000 });
    const replies = () => [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted);
    await releaseUntil(() => replies().length === 1 && JSON.stringify(replies()[0]!.content).includes(ANSWER), 'the answer');
    expect(JSON.stringify(replies()[0]!.content)).not.toContain(LABEL);
    await expectNotStored('%:feishu:%:dm:ou_progress_1');
  });

  it('a turn without tools makes no extra platform call: one message each, no edits, the plain assistant status', async () => {
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(7302, 'just say hi'));
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/events', slack.makeEvent.dm('U0PROG003', 'just say hi', { thread_ts: '1700000000.000888' })));
    const event = feishu.events.p2pText('just say hi', { chatId: 'oc_progress_2', userOpenId: 'ou_progress_2' });
    await postFeishu(service.url, feishu.delivery(event));
    await waitFor(async () => (await runsOf('%:dm:7302')).length + (await runsOf('%:slack:%:dm:U0PROG003%')).length + (await runsOf('%:feishu:%:dm:ou_progress_2')).length === 3, {
      what: 'the three runs',
      timeoutMs: 20_000,
    });
    await waitFor(() => slack.callsOf('assistant.threads.setStatus').filter((call) => call.params.channel_id === 'D0PROG003').length === 2, { what: 'the status cleared' });
    expect(telegram.calls.filter((call) => call.params.chat_id === 7302 && call.method !== 'sendChatAction').map((call) => call.method)).toEqual(['sendMessage']);
    expect(slack.callsOf('assistant.threads.setStatus').filter((call) => call.params.channel_id === 'D0PROG003').map((call) => call.params.status)).toEqual(['is thinking…', '']);
    expect(slack.callsOf('chat.update').filter((call) => call.params.channel === 'D0PROG003')).toHaveLength(0);
    expect(feishu.calls.filter((call) => call.path === `/open-apis/im/v1/messages/${event.event.message.message_id}/reply`)).toHaveLength(1);
    const [answer] = [...feishu.messages.values()].filter((message) => message.parentId === event.event.message.message_id);
    expect(feishu.calls.filter((call) => call.method === 'PATCH' && call.path === `/open-apis/im/v1/messages/${answer!.messageId}`)).toHaveLength(0);
  });
});
