import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/** write_file (append) needs a person's approval; the model appends a line, then answers with what the tool said. */
const CONFIG = `
agents:
  - id: main
    toolPolicy:
      requireApproval: [write_file]
`;

let environment: E2eEnvironment;
let service: ServiceProcess | undefined;
let configDirectory: string;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'approval-e2e-'));
  writeFileSync(join(configDirectory, 'bot.config.yaml'), CONFIG);
  // after a tool ran (or was refused), the model repeats what the tool said
  environment.openai.script.respondWith((request, lastUserText) => {
    const messages = request.body.messages as Array<{ role: string; content: string }>;
    return messages.at(-1)?.role === 'tool' ? `Tool said: ${messages.at(-1)!.content}` : `You said: ${lastUserText}`;
  });
});

afterEach(async () => {
  await service?.stop();
  service = undefined;
});

afterAll(async () => {
  await environment?.close();
  rmSync(configDirectory, { recursive: true, force: true });
});

const start = async (extra: Record<string, string> = {}) =>
  (service = await startServiceProcess(environment.env({ CONFIG_FILE: join(configDirectory, 'bot.config.yaml'), ...extra })));

const messagesIn = (chatId: number) => environment.telegram.visibleMessages(chatId);
const notesOf = (userId: number) => {
  const file = join(environment.dataDir, 'workspaces', String(userId), 'notes.txt');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};
type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();

/** Sends a message that makes the model call write_file; resolves with the approval request as posted. */
async function askForApproval(chatId: number, line: string) {
  environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: `${line}\n`, append: true }));
  const before = messagesIn(chatId).length;
  await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, `please note ${line}`));
  return waitFor(() => messagesIn(chatId).slice(before).find((message) => buttonsOf(message.replyMarkup).length === 3), { what: 'the approval request with its buttons' });
}

const click = async (chatId: number, userId: number, data: string, messageId: number) => {
  const before = environment.telegram.callsOf('answerCallbackQuery').length;
  await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.callbackQuery(chatId, userId, data, messageId));
  return waitFor(() => environment.telegram.callsOf('answerCallbackQuery')[before], { what: 'the click answered' });
};

const answerAfter = (chatId: number, promptId: number) => waitFor(() => messagesIn(chatId).find((message) => message.messageId > promptId && message.text.startsWith('Tool said:')), { what: 'the answer after the decision' });

describe('approval in chat (Telegram)', () => {
  it('parks the turn; only the requester can answer; Allow once runs the tool once and the turn goes on; a second click is refused', async () => {
    await start();
    const chatId = 5101;
    const prompt = await askForApproval(chatId, 'buy milk');
    expect(prompt.text).toContain('write_file');
    expect(prompt.text).toContain('buy milk');
    expect(buttonsOf(prompt.replyMarkup).map((button) => button.text)).toEqual(['Allow once', 'Allow for this session', 'Deny']);
    const [once] = buttonsOf(prompt.replyMarkup);

    // parked: no open model request, no worker job running, the tool has not run
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(notesOf(chatId)).toBe('');
    expect(await environment.redis.hget(environment.keys.session(`agent:main:telegram:${environment.telegram.botId}:dm:${chatId}`).meta, 'n')).toBe('1');

    const stranger = await click(chatId, 777, once!.callback_data, prompt.messageId);
    expect(stranger.params).toMatchObject({ show_alert: true, text: 'Only the person who asked can answer this request.' });
    expect(notesOf(chatId)).toBe('');

    const allowed = await click(chatId, chatId, once!.callback_data, prompt.messageId);
    expect(allowed.params.show_alert).toBe(false);
    const answer = await answerAfter(chatId, prompt.messageId);
    expect(answer.text).toMatch(/^Tool said: .*Appended .* to notes.txt/);
    expect(notesOf(chatId)).toBe('buy milk\n');
    const settled = messagesIn(chatId).find((message) => message.messageId === prompt.messageId)!;
    expect(settled.text).toContain('Allowed once by User.');
    expect(buttonsOf(settled.replyMarkup)).toEqual([]);

    const again = await click(chatId, chatId, once!.callback_data, prompt.messageId);
    expect(again.params).toMatchObject({ show_alert: true, text: 'This request was already answered.' });
    await waitFor(async () => (await environment.sql`SELECT status FROM runs`).some((run) => run.status === 'completed'));
    expect(notesOf(chatId)).toBe('buy milk\n');
    // the decision is stored with the run, between the model's call and the tool's run
    const spans = await environment.sql`SELECT kind, name, is_error, output_preview FROM run_spans ORDER BY position`;
    expect(spans.map((span) => span.kind)).toEqual(['llm', 'approval', 'tool', 'llm']);
    expect(spans[1]).toMatchObject({ name: 'write_file', is_error: false, output_preview: `allowed-once by ${chatId}` });
  });

  it('Deny gives the model a result saying so; Allow for this session skips the question next time', async () => {
    await start();
    const chatId = 5102;
    const denyPrompt = await askForApproval(chatId, 'first');
    await click(chatId, chatId, buttonsOf(denyPrompt.replyMarkup)[2]!.callback_data, denyPrompt.messageId);
    expect((await answerAfter(chatId, denyPrompt.messageId)).text).toContain('the user did not allow this tool call (the user denied it)');
    expect(notesOf(chatId)).toBe('');
    expect(messagesIn(chatId).find((message) => message.messageId === denyPrompt.messageId)!.text).toContain('Denied by User.');

    const sessionPrompt = await askForApproval(chatId, 'second');
    await click(chatId, chatId, buttonsOf(sessionPrompt.replyMarkup)[1]!.callback_data, sessionPrompt.messageId);
    await answerAfter(chatId, sessionPrompt.messageId);
    expect(notesOf(chatId)).toBe('second\n');

    environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'third\n', append: true }), reply.text('Noted without asking.'));
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'please note third'));
    await waitFor(() => messagesIn(chatId).find((message) => message.text === 'Noted without asking.'), { what: 'the answer without a new request' });
    expect(notesOf(chatId)).toBe('second\nthird\n');
    expect(messagesIn(chatId).filter((message) => buttonsOf(message.replyMarkup).length > 0 || message.text.startsWith('Approval needed'))).toHaveLength(2);
  });

  it('survives every process killed while it waits (the tool runs once after a click on a fresh process); unanswered it is denied after APPROVAL_TIMEOUT_MS', async () => {
    // a short lease: a turn whose holder died is taken over within seconds
    await start({ APPROVAL_TIMEOUT_MS: '60000', TURN_LEASE_MS: '3000' });
    const chatId = 5103;
    const prompt = await askForApproval(chatId, 'after restart');
    // every process dies at once, without a chance to clean up
    await service!.kill('SIGKILL');
    await start({ APPROVAL_TIMEOUT_MS: '60000', TURN_LEASE_MS: '3000' });
    await click(chatId, chatId, buttonsOf(prompt.replyMarkup)[0]!.callback_data, prompt.messageId);
    await answerAfter(chatId, prompt.messageId);
    expect(notesOf(chatId)).toBe('after restart\n');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(messagesIn(chatId).filter((message) => message.text.startsWith('Tool said:'))).toHaveLength(1);
    await service!.stop();

    await start({ APPROVAL_TIMEOUT_MS: '1500' });
    const unanswered = await askForApproval(chatId, 'never');
    const answer = await answerAfter(chatId, unanswered.messageId);
    expect(answer.text).toContain('nobody answered the approval request in time');
    expect(messagesIn(chatId).find((message) => message.messageId === unanswered.messageId)!.text).toContain('No answer in time: denied.');
    expect(notesOf(chatId)).toBe('after restart\n');
  });

  it('/stop cancels a waiting turn: the request says so, the turn is stored as cancelled, the next message is answered', async () => {
    await start();
    const chatId = 5104;
    const prompt = await askForApproval(chatId, 'stopped');
    const once = buttonsOf(prompt.replyMarkup)[0]!.callback_data;
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.command(chatId, chatId, 'stop'));
    await waitFor(() => messagesIn(chatId).find((message) => message.messageId === prompt.messageId)!.text.includes('Stopped.'), { what: 'the request marked stopped' });
    await waitFor(async () => (await environment.sql`SELECT status FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`).some((run) => run.status === 'cancelled'), { what: 'the cancelled turn stored' });
    expect(notesOf(chatId)).toBe('');
    const late = await click(chatId, chatId, once, prompt.messageId);
    expect(late.params).toMatchObject({ show_alert: true, text: 'This request was already answered.' });

    environment.openai.script.push(reply.text('Back to normal.'));
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'hello again'));
    await waitFor(() => messagesIn(chatId).find((message) => message.text === 'Back to normal.'), { what: 'the next answer' });
    expect(notesOf(chatId)).toBe('');
  });

  it('/stop that lands after the request went out but before the turn parked still stops it: the request says so', async () => {
    await start();
    const chatId = 5105;
    environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'raced\n', append: true }));
    // the request, then the turn's "Waiting for your approval" line as it parks: both held on arrival
    const request = environment.telegram.holdBeforeCommit('sendMessage');
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.privateText(chatId, 'please note raced'));
    await request.arrived;
    const line = environment.telegram.holdBeforeCommit('sendMessage');
    request.release();
    const prompt = await waitFor(() => messagesIn(chatId).find((message) => buttonsOf(message.replyMarkup).length === 3), { what: 'the approval request' });
    await line.arrived;
    await postTelegramUpdate(service!.url, environment.telegram.makeUpdate.command(chatId, chatId, 'stop'));
    await waitFor(() => messagesIn(chatId).some((message) => message.text === 'Stopped.' || message.text.includes('Stopped')), { what: 'the stop answered' });
    line.release();
    await waitFor(() => messagesIn(chatId).find((message) => message.messageId === prompt.messageId)!.text.includes('Stopped.'), { what: 'the request marked stopped' });
    await waitFor(async () => (await environment.sql`SELECT status FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${`%:dm:${chatId}`}`).some((run) => run.status === 'cancelled'), { what: 'the cancelled turn stored' });
    expect(notesOf(chatId)).toBe('');
  });
});
