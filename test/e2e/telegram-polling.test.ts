import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ TELEGRAM_MODE: 'polling', TELEGRAM_WEBHOOK_SECRET: '' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

describe('Telegram long polling, end to end', () => {
  it('answers a private message received through getUpdates', async () => {
    environment.telegram.pushUpdate(environment.telegram.makeUpdate.privateText(2001, 'polling hello'));
    const [sent] = await waitFor(() => (sentTo(2001).length > 0 ? sentTo(2001) : undefined), { what: 'the answer' });
    expect(sent!.params.text).toBe('You said: polling hello');
    expect(environment.telegram.callsOf('deleteWebhook').length).toBeGreaterThan(0);
  });

  it('answers messages of one chat in arrival order and of two chats independently', async () => {
    environment.openai.settings.latencyMs = 200;
    for (const text of ['first', 'second', 'third']) environment.telegram.pushUpdate(environment.telegram.makeUpdate.privateText(2002, text));
    environment.telegram.pushUpdate(environment.telegram.makeUpdate.privateText(2003, 'other chat'));
    await waitFor(() => sentTo(2003).length > 0 && sentTo(2002).length >= 2, { what: 'answers in both chats' });
    environment.openai.settings.latencyMs = 0;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answers = sentTo(2002).map((call) => String(call.params.text));
    // The first message runs alone; the two that arrived while it ran are collected into the next turn.
    expect(answers[0]).toBe('You said: first');
    // found by its user messages: the system prompt and the tool schemas say "seconds" too
    const userMessagesOf = (call: { body: { messages: Array<{ role: string }> } }) => call.body.messages.filter((message) => message.role === 'user');
    const secondTurn = environment.openai.modelCalls.find((call) => JSON.stringify(userMessagesOf(call)).includes('second'))!;
    const userTexts = secondTurn.body.messages.filter((message: { role: string }) => message.role === 'user').map((message: { content: unknown }) => JSON.stringify(message.content));
    expect(userTexts.some((text: string) => text.includes('second'))).toBe(true);
    expect(userTexts.some((text: string) => text.includes('third'))).toBe(true);
    expect(answers).toHaveLength(2);
    const stored = (await environment.storedMessages()).filter((row) => row.session_key.endsWith(':dm:2002') && row.role === 'user');
    expect(stored.map((row) => row.parts[0].text)).toEqual(['first', 'second', 'third']);
  });
});
