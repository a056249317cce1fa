import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspacePathFor } from '../../src/agent/tools/workspace.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { PNG_BYTES } from '../support/media-fixtures.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Every kind of answer of a forum topic lands in that topic (`message_thread_id`) through the built service: the
 * typing indicator, the live draft (streaming on for groups), the approval prompt and its settled form, a file, the
 * answer after them; `/new` and `/stop`
 * act on the topic they were sent in only.
 */
const CONFIG = `
agents:
  - id: main
    toolPolicy:
      requireApproval: [write_file]
channels:
  telegram:
    streaming: all
`;

const STREAMED = 'A live answer in the topic, written while the model streams it, long enough for a draft or two.';

let environment: E2eEnvironment;
let service: ServiceProcess;
let configDirectory: string;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'topics-e2e-'));
  writeFileSync(join(configDirectory, 'bot.config.yaml'), CONFIG);
  environment.openai.script.respondWith((request, lastUserText) => {
    const messages = request.body.messages as Array<{ role: string; content: string }>;
    if (messages.at(-1)?.role === 'tool') return `Tool said: ${messages.at(-1)!.content}`;
    if (lastUserText.includes('APPROVE-ME')) return reply.toolCall('write_file', { path: 'notes.txt', content: 'topic note\n' });
    if (lastUserText.includes('FILE-ME')) return reply.toolCall('send_file', { path: 'chart.png', caption: 'the chart' });
    if (lastUserText.includes('STREAM-ME')) return reply.text(STREAMED, { chunkSize: 8, chunkDelayMs: 120 });
    if (lastUserText.includes('SLOW')) return reply.text(`slow answer to ${lastUserText}`, { latencyMs: 4_000 });
    return `You said: ${lastUserText}`;
  });
  service = await startServiceProcess(environment.env({ CONFIG_FILE: join(configDirectory, 'bot.config.yaml'), LLM_STREAM: 'true' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  rmSync(configDirectory, { recursive: true, force: true });
});

const FORUM = { type: 'supergroup', title: 'Forum', is_forum: true };
const inTopic = (threadId: number) => ({ message_thread_id: threadId, is_topic_message: true });

function mention(chatId: number, userId: number, text: string, threadId: number) {
  const handle = `@${environment.telegram.botUsername}`;
  return environment.telegram.makeUpdate.groupText(chatId, userId, `${handle} ${text}`, {
    chat: { id: chatId, ...FORUM },
    entities: [{ type: 'mention', offset: 0, length: handle.length }],
    ...inTopic(threadId),
  });
}

const command = (chatId: number, userId: number, text: string, threadId: number) =>
  environment.telegram.makeUpdate.groupText(chatId, userId, text, { chat: { id: chatId, ...FORUM }, entities: [{ type: 'bot_command', offset: 0, length: text.length }], ...inTopic(threadId) });

const visibleIn = (chatId: number) => environment.telegram.visibleMessages(chatId);
const find = (chatId: number, test: (text: string) => boolean, what: string) => waitFor(() => visibleIn(chatId).find((message) => test(message.text)), { timeoutMs: 20_000, what });
type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();
const userTextsSentWith = (marker: string) => {
  const call = environment.openai.modelCalls.filter((candidate) => JSON.stringify(candidate.body.messages.at(-1)).includes(marker)).at(-1);
  return (call?.body.messages ?? []).filter((message: { role: string }) => message.role === 'user').map((message: unknown) => JSON.stringify(message));
};

describe('Telegram forum topics: every part of an answer in the topic', () => {
  it('the approval prompt, its decision, the typing indicator and the answer go to the topic', async () => {
    const chatId = -100801;
    const { telegram } = environment;
    await postTelegramUpdate(service.url, mention(chatId, 8001, 'APPROVE-ME please', 60));
    const prompt = await waitFor(() => visibleIn(chatId).find((message) => buttonsOf(message.replyMarkup).length === 3), { what: 'the approval prompt' });
    expect(prompt.threadId).toBe(60);
    const [allowOnce] = buttonsOf(prompt.replyMarkup);
    await postTelegramUpdate(service.url, telegram.makeUpdate.callbackQuery(chatId, 8001, allowOnce!.callback_data, prompt.messageId));
    const answer = await find(chatId, (text) => text.startsWith('Tool said:'), 'the answer after the approval');
    expect(answer.threadId).toBe(60);
    expect(buttonsOf(telegram.messages.get(`${chatId}:${prompt.messageId}`)!.replyMarkup)).toHaveLength(0);
    const typing = telegram.callsOf('sendChatAction').filter((call) => call.params.chat_id === chatId);
    expect(typing.length).toBeGreaterThan(0);
    expect(typing.every((call) => call.params.message_thread_id === 60)).toBe(true);
    const sends = telegram.calls.filter((call) => call.params.chat_id === chatId && /^send/.test(call.method));
    expect(sends.every((call) => call.params.message_thread_id === 60)).toBe(true);
  });

  it('the live draft streams in the topic and settles there', async () => {
    const chatId = -100804;
    const { telegram } = environment;
    await postTelegramUpdate(service.url, mention(chatId, 8004, 'STREAM-ME please', 62));
    const answer = await find(chatId, (text) => text === STREAMED, 'the streamed answer');
    expect(answer.threadId).toBe(62);
    expect(answer.edits, 'the draft was edited into the answer').toBeGreaterThan(0);
    expect(visibleIn(chatId)).toHaveLength(1);
    const sends = telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId);
    expect(sends.every((call) => call.params.message_thread_id === 62)).toBe(true);
  });

  it('a file the model sends goes to the topic, with the answer after it', async () => {
    const chatId = -100802;
    const { telegram } = environment;
    const workspace = workspacePathFor(environment.dataDir, `group:telegram:${telegram.botId}:${chatId}`);
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'chart.png'), PNG_BYTES);
    await postTelegramUpdate(service.url, mention(chatId, 8002, 'FILE-ME please', 61));
    const answer = await find(chatId, (text) => text.startsWith('Tool said:'), 'the answer after the file');
    expect(answer.threadId).toBe(61);
    const photo = visibleIn(chatId).find((message) => message.file?.kind === 'photo');
    expect(photo).toMatchObject({ threadId: 61, text: 'the chart' });
    expect(telegram.callsOf('sendPhoto').filter((call) => call.params.chat_id === chatId).every((call) => call.params.message_thread_id === 61)).toBe(true);
  });

  it('/new and /stop act on the topic they were sent in only', async () => {
    const chatId = -100803;
    await postTelegramUpdate(service.url, mention(chatId, 8003, 'FIRST-70 words', 70));
    await find(chatId, (text) => text.includes('FIRST-70 words'), 'the answer in topic 70');
    await postTelegramUpdate(service.url, mention(chatId, 8003, 'FIRST-71 words', 71));
    await find(chatId, (text) => text.includes('FIRST-71 words'), 'the answer in topic 71');

    await postTelegramUpdate(service.url, command(chatId, 8003, '/new', 70));
    expect((await find(chatId, (text) => text.startsWith('Started a fresh conversation'), 'the reset confirmed')).threadId).toBe(70);
    await postTelegramUpdate(service.url, mention(chatId, 8003, 'SECOND-70 words', 70));
    await find(chatId, (text) => text.includes('SECOND-70 words'), 'the second answer in topic 70');
    expect(userTextsSentWith('SECOND-70 words').join()).not.toContain('FIRST-70 words');
    await postTelegramUpdate(service.url, mention(chatId, 8003, 'SECOND-71 words', 71));
    await find(chatId, (text) => text.includes('SECOND-71 words'), 'the second answer in topic 71');
    expect(userTextsSentWith('SECOND-71 words').join()).toContain('FIRST-71 words');

    // a slow turn in topic 71; /stop in topic 70 has nothing to stop there, and 71's answer still comes
    await postTelegramUpdate(service.url, mention(chatId, 8003, 'SLOW-71', 71));
    await environment.openai.waitFor(() => environment.openai.modelCalls.some((call) => JSON.stringify(call.body.messages.at(-1)).includes('SLOW-71')), 20_000);
    await postTelegramUpdate(service.url, command(chatId, 8003, '/stop', 70));
    expect((await find(chatId, (text) => text === 'Nothing to stop.', '/stop answered')).threadId).toBe(70);
    expect((await find(chatId, (text) => text.includes('slow answer to SLOW-71'), 'the slow answer')).threadId).toBe(71);
    // /stop in topic 71 stops the slow turn there
    await postTelegramUpdate(service.url, mention(chatId, 8003, 'SLOW-71 again', 71));
    await environment.openai.waitFor(() => environment.openai.modelCalls.some((call) => JSON.stringify(call.body.messages.at(-1)).includes('SLOW-71 again')), 20_000);
    await postTelegramUpdate(service.url, command(chatId, 8003, '/stop', 71));
    expect((await find(chatId, (text) => text.startsWith('Stopped.'), 'the slow turn stopped')).threadId).toBe(71);
  });
});
