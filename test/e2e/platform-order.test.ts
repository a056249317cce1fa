import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env());
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

describe('messages answered together keep the platform’s order', () => {
  it('two messages delivered out of order while a turn runs are stored and sent to the model in message_id order', async () => {
    const chatId = 6201;
    environment.openai.settings.latencyMs = 600;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'one'));
    await waitFor(() => environment.openai.modelCalls.some((call) => JSON.stringify(call.body).includes('one')), { what: 'the first turn running' });
    const earlier = environment.telegram.makeUpdate.privateText(chatId, 'two');
    const later = environment.telegram.makeUpdate.privateText(chatId, 'three');
    // Telegram's webhook deliveries raced: the later message reached us first
    await postTelegramUpdate(service.url, later);
    await postTelegramUpdate(service.url, earlier);
    await waitFor(async () => (await environment.sql`SELECT count(*)::int AS n FROM runs`)[0]!.n === 2, { what: 'both turns stored' });
    environment.openai.settings.latencyMs = 0;
    const stored = (await environment.storedMessages()).filter((row) => row.session_key.endsWith(`:dm:${chatId}`) && row.role === 'user');
    expect(stored.map((row) => row.parts[0].text)).toEqual(['one', 'two', 'three']);
    const second = environment.openai.modelCalls.find((call) => JSON.stringify(call.body).includes('three'))!;
    const sent = JSON.stringify(second.body.messages);
    expect(sent.indexOf('two')).toBeLessThan(sent.indexOf('three'));
  });
});
