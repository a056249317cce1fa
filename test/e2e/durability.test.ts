import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

beforeEach(async () => {
  environment = await createE2eEnvironment();
});

afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.stop()));
  await environment.close();
});

const LEASE = { TURN_LEASE_MS: '2000' };

async function start(overrides: Record<string, string> = {}) {
  const service = await startServiceProcess(environment.env({ ...LEASE, ...overrides }));
  services.push(service);
  return service;
}

async function expectAnsweredAndStoredOnce(chatId: number) {
  const sentTo = () => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
  await waitFor(() => sentTo().length > 0, { timeoutMs: 30_000, what: 'the answer after takeover' });
  await new Promise((resolve) => setTimeout(resolve, 2_500)); // a second answer would arrive within a lease
  expect(sentTo()).toHaveLength(1);
  const rows = (await environment.storedMessages()).filter((row) => row.session_key.endsWith(`:dm:${chatId}`));
  expect(rows.map((row) => row.role)).toEqual(['user', 'assistant']);
  expect(rows.map((row) => row.seq)).toEqual([0, 1]);
  const runs = await environment.sql`SELECT status FROM runs`;
  expect(runs.map((run) => run.status)).toEqual(['completed']);
}

describe('a service killed with SIGKILL while the model is answering', () => {
  it('answers and stores the message exactly once after a restart', async () => {
    const first = await start();
    environment.openai.settings.latencyMs = 60_000;
    await postTelegramUpdate(first.url, environment.telegram.makeUpdate.privateText(4001, 'survive a crash'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 15_000);
    await first.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    await start();
    await expectAnsweredAndStoredOnce(4001);
  });

  it('is taken over by a second worker that is alive', async () => {
    const first = await start();
    environment.openai.settings.latencyMs = 60_000;
    await postTelegramUpdate(first.url, environment.telegram.makeUpdate.privateText(4002, 'second worker please'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 15_000);
    await start({ ROLE: 'worker' });
    await first.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    await expectAnsweredAndStoredOnce(4002);
  });
});
