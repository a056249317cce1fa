import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import { reply } from '../doubles/model-script.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import type { TelegramDouble } from '../doubles/telegram-double.js';
import { createE2eEnvironment, postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { progressLineChecks, telegramText } from './support/progress-line-checks.js';

/**
 * The progress line where the answer does not stream (groups: LLM_STREAM streams DMs only), through one built service
 * on all three platforms: a labelled tool's line goes out as a message of its own once the tools take a while, and
 * that message becomes the answer (one bot message in the chat); a silent answer removes it. An approval prompt is
 * followed by "Waiting for your approval" until the person answers. None of it is stored.
 */
const LABEL = 'Looking through files…';
const APPROVAL_LINE = 'Waiting for your approval';
const ANSWER = 'Your workspace is empty.';
const CONFIG = `
agents:
  - id: main
    toolPolicy:
      requireApproval: [write_file]
`;
/** The answer after the tool is held until the test has seen the line (then `endPauses`). */
const toolThenHeld = (answer = ANSWER) => [reply.toolCall('list_directory', {}), reply.text(answer, { latencyMs: 30_000 })];

let environment: E2eEnvironment;
let telegram: TelegramDouble;
let slack: SlackDouble;
let feishu: FeishuDouble;
let service: ServiceProcess;
let configDirectory: string;

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true, feishu: true });
  ({ telegram } = environment);
  slack = environment.slack!;
  feishu = environment.feishu!;
  configDirectory = mkdtempSync(join(tmpdir(), 'progress-unstreamed-'));
  writeFileSync(join(configDirectory, 'bot.config.yaml'), CONFIG);
  service = await startServiceProcess(
    environment.env({
      LLM_STREAM: 'true',
      GROUP_REQUIRE_MENTION: 'false',
      CONFIG_FILE: join(configDirectory, 'bot.config.yaml'),
      ...environment.slackEnv(),
      ...environment.feishuEnv(),
    }),
  );
});

afterAll(async () => {
  environment?.openai.endPauses();
  await service?.stop();
  await environment?.close();
  rmSync(configDirectory, { recursive: true, force: true });
});

afterEach(() => {
  environment.openai.endPauses();
  environment.openai.script.clear();
});

const { runsOf, expectNotStored, releaseUntil } = progressLineChecks(() => environment, [LABEL, APPROVAL_LINE]);

const telegramSends = (chatId: number) => telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();

describe('progress lines where the answer does not stream', () => {
  it('Telegram group: the line is a message of its own, which becomes the answer; a silent answer removes it', async () => {
    const chatId = -100_7401;
    environment.openai.script.push(...toolThenHeld());
    await postTelegramUpdate(service.url, telegram.makeUpdate.groupText(chatId, 7401, 'what is in my workspace?'));
    await waitFor(() => telegram.visibleMessages(chatId).some((message) => message.text === LABEL), { what: 'the progress line', timeoutMs: 15_000 });
    const status = telegram.visibleMessages(chatId)[0]!;
    expect(telegramSends(chatId)[0]!.params.text).toBe(`<i>${LABEL}</i>`);
    await releaseUntil(() => telegram.visibleMessages(chatId).some((message) => message.text === ANSWER), 'the answer');
    // one message: the line's message became the answer
    expect(telegram.visibleMessages(chatId).map((message) => ({ id: message.messageId, text: message.text }))).toEqual([{ id: status.messageId, text: ANSWER }]);
    expect(telegramSends(chatId)).toHaveLength(1);
    expect(telegramText(telegram.callsOf('editMessageText').filter((call) => call.params.chat_id === chatId).at(-1)!.params.text)).toBe(ANSWER);
    await expectNotStored(`%:group:${chatId}`);

    // NO_REPLY after the line was shown: the line's message goes, nothing is left in the chat
    const silentChat = -100_7402;
    environment.openai.script.push(...toolThenHeld('NO_REPLY'));
    await postTelegramUpdate(service.url, telegram.makeUpdate.groupText(silentChat, 7402, 'what is in my workspace?'));
    await waitFor(() => telegram.visibleMessages(silentChat).some((message) => message.text === LABEL), { what: 'the progress line', timeoutMs: 15_000 });
    await releaseUntil(() => telegram.callsOf('deleteMessage').some((call) => call.params.chat_id === silentChat && !call.failed), 'the line removed');
    await waitFor(async () => (await runsOf(`%:group:${silentChat}`)).length === 1, { what: 'the silent run stored' });
    expect(telegram.visibleMessages(silentChat)).toEqual([]);
  });

  it('Slack channel: the line is posted in the thread, then edited into the answer', async () => {
    const channel = 'C0PROGCH1';
    const posted = () => slack.callsOf('chat.postMessage').filter((call) => call.params.channel === channel && !call.failed);
    const visible = () => [...slack.messages.values()].filter((message) => message.channel === channel && !message.deleted);
    environment.openai.script.push(...toolThenHeld());
    const event = slack.makeEvent.channelMessage(channel, 'U0PROGCH1', 'what is in my workspace?');
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/events', event));
    await waitFor(() => posted().some((call) => call.params.text === `_${LABEL}_`), { what: 'the progress line', timeoutMs: 15_000 });
    expect(posted()[0]!.params.thread_ts).toBe((event as { event: { ts: string } }).event.ts);
    await releaseUntil(() => visible().some((message) => message.text === ANSWER), 'the answer');
    expect(visible().map((message) => message.text)).toEqual([ANSWER]);
    expect(posted()).toHaveLength(1);
    await expectNotStored(`%:slack:%${channel}%`);
  });

  it('Feishu group: the line is a card replying to the message, patched into the answer', async () => {
    const event = feishu.events.groupText('what is in my workspace?', { chatId: 'oc_progress_group', userOpenId: 'ou_progress_g' });
    const messageId = event.event.message.message_id;
    const cardText = (content: unknown) => (JSON.parse(String(content)) as { body: { elements: Array<{ content: string }> } }).body.elements.map((element) => element.content).join('\n');
    const replies = () => [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted);
    environment.openai.script.push(...toolThenHeld());
    await postFeishu(service.url, feishu.delivery(event));
    await waitFor(() => replies().some((message) => JSON.stringify(message.content).includes(LABEL)), { what: 'the progress line', timeoutMs: 15_000 });
    const sent = feishu.calls.filter((call) => call.code === 0 && call.method === 'POST' && call.path === `/open-apis/im/v1/messages/${messageId}/reply`);
    expect(cardText(sent[0]!.body.content)).toBe(`*${LABEL}*`);
    await releaseUntil(() => replies().length === 1 && JSON.stringify(replies()[0]!.content).includes(ANSWER), 'the answer');
    expect(JSON.stringify(replies()[0]!.content)).not.toContain(LABEL);
    expect(feishu.calls.filter((call) => call.code === 0 && call.method === 'POST' && call.path === `/open-apis/im/v1/messages/${messageId}/reply`)).toHaveLength(1);
    await expectNotStored('%:feishu:%:group:oc_progress_group');
  });

  it('Telegram group approval: "Waiting for your approval" follows the prompt; the answer replaces it once allowed', async () => {
    const chatId = -100_7403;
    const userId = 7403;
    environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'milk\n' }), reply.text(ANSWER));
    await postTelegramUpdate(service.url, telegram.makeUpdate.groupText(chatId, userId, 'please note milk'));
    const prompt = await waitFor(() => telegram.visibleMessages(chatId).find((message) => buttonsOf(message.replyMarkup).length === 3), { what: 'the approval prompt' });
    const waiting = await waitFor(() => telegram.visibleMessages(chatId).find((message) => message.text === APPROVAL_LINE), { what: 'the approval line' });
    expect(waiting.messageId).toBeGreaterThan(prompt.messageId);

    await postTelegramUpdate(service.url, telegram.makeUpdate.callbackQuery(chatId, userId, buttonsOf(prompt.replyMarkup)[0]!.callback_data, prompt.messageId));
    await waitFor(() => telegram.visibleMessages(chatId).some((message) => message.text === ANSWER), { what: 'the answer', timeoutMs: 15_000 });
    // the prompt (settled) and one message that showed the line, then the answer
    expect(telegram.visibleMessages(chatId).map((message) => message.messageId)).toEqual([prompt.messageId, waiting.messageId]);
    expect(telegram.visibleMessages(chatId).find((message) => message.messageId === waiting.messageId)!.text).toBe(ANSWER);
    expect(telegramSends(chatId)).toHaveLength(2);
    await expectNotStored(`%:group:${chatId}`);
  });

  it('Slack assistant thread approval: the assistant status says "Waiting for your approval" after the prompt is posted', async () => {
    const user = 'U0PROGAP1';
    const channel = `D${user.slice(1)}`;
    const threadTs = '1700000000.000999';
    environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'milk\n' }), reply.text(ANSWER));
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/events', slack.makeEvent.dm(user, 'please note milk', { thread_ts: threadTs })));
    const statusCalls = () => slack.calls.filter((call) => call.method === 'assistant.threads.setStatus' && call.params.channel_id === channel);
    await waitFor(() => statusCalls().some((call) => call.params.status === APPROVAL_LINE), { what: 'the approval line', timeoutMs: 15_000 });
    const promptPost = slack.calls.findIndex((call) => call.method === 'chat.postMessage' && call.params.channel === channel && !call.failed);
    const lineSet = slack.calls.findIndex((call) => call.method === 'assistant.threads.setStatus' && call.params.channel_id === channel && call.params.status === APPROVAL_LINE);
    expect(promptPost).toBeGreaterThanOrEqual(0);
    expect(lineSet, 'set after the prompt (Slack clears the status when the app posts)').toBeGreaterThan(promptPost);
    // parked: the line stays, not cleared behind it
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(statusCalls().at(-1)!.params.status).toBe(APPROVAL_LINE);

    type Button = { type: string; value: string };
    const prompt = [...slack.messages.values()].find((message) => message.channel === channel && (message.blocks ?? []).some((block) => (block as { type: string }).type === 'actions'))!;
    const once = ((prompt.blocks!.find((block) => (block as { type: string }).type === 'actions') as { elements: Button[] }).elements)[0]!.value;
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/interactions', slack.makeEvent.blockAction(channel, user, once, prompt.ts, threadTs), { form: true }));
    await waitFor(() => [...slack.messages.values()].some((message) => message.channel === channel && message.text === ANSWER), { what: 'the answer', timeoutMs: 15_000 });
    await waitFor(() => statusCalls().at(-1)!.params.status === '', { what: 'the status cleared with the answer' });
    await expectNotStored(`%:slack:%:dm:${user}%`);
  });

  it('Feishu group approval: the line card follows the approval card and becomes the answer once allowed', async () => {
    const event = feishu.events.groupText('please note milk', { chatId: 'oc_progress_approval', userOpenId: 'ou_progress_ap' });
    const messageId = event.event.message.message_id;
    type Button = { tag: string; value: Record<string, unknown> };
    const buttonsOf = (card: unknown): Button[] =>
      ((card as { elements?: Array<{ tag: string; actions?: Button[] }> })?.elements ?? []).flatMap((element) => (element.tag === 'action' ? (element.actions ?? []) : []));
    const replies = () => [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted);
    environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'milk\n' }), reply.text(ANSWER));
    await postFeishu(service.url, feishu.delivery(event));
    const prompt = await waitFor(() => replies().find((message) => buttonsOf(message.content).length === 3), { what: 'the approval card' });
    const waiting = await waitFor(() => replies().find((message) => JSON.stringify(message.content).includes(APPROVAL_LINE)), { what: 'the approval line' });
    expect(replies().map((message) => message.messageId)).toEqual([prompt.messageId, waiting.messageId]);

    const click = feishu.delivery(feishu.events.cardAction(buttonsOf(prompt.content)[0]!.value, { userOpenId: 'ou_progress_ap', messageId: prompt.messageId }));
    const clicked = await fetch(`${service.url}/webhooks/feishu/cards`, { method: 'POST', headers: { 'content-type': 'application/json', ...click.headers }, body: click.rawBody });
    expect(clicked.status).toBe(200);
    await waitFor(() => JSON.stringify(feishu.messages.get(waiting.messageId)?.content).includes(ANSWER), { what: 'the answer in the line card', timeoutMs: 15_000 });
    expect(replies().map((message) => message.messageId)).toEqual([prompt.messageId, waiting.messageId]);
    expect(JSON.stringify(feishu.messages.get(waiting.messageId)!.content)).not.toContain(APPROVAL_LINE);
    await expectNotStored('%:feishu:%:group:oc_progress_approval');
  });
});
