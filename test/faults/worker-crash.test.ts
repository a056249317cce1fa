import { afterEach, beforeEach, describe, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS, deliverLikeTelegram, waitUntilStored } from './support/fault-service.js';
import { auditTelegramLedger, expectNothingLostOrDoubled } from './support/ledger.js';

let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

beforeEach(async () => {
  environment = await createE2eEnvironment();
});

afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.stop()));
  await environment.close();
});

async function start(overrides: Record<string, string> = {}) {
  const service = await startServiceProcess(environment.env({ TURN_LEASE_MS: '2000', ...overrides }));
  services.push(service);
  return service;
}

async function sendBurst(url: () => string, chats: number[]) {
  return Promise.all(chats.map((chatId) => deliverLikeTelegram(url, environment.telegram.makeUpdate.privateText(chatId, `crash test ${chatId}`))));
}

describe('fault: a worker is SIGKILLed mid-turn', () => {
  it('without a second worker: the restarted service answers and stores every message once', async () => {
    const first = await start();
    environment.openai.settings.latencyMs = 30_000;
    const accepted = await sendBurst(() => first.url, [9101, 9102, 9103, 9104, 9105]);
    await environment.openai.waitFor(() => environment.openai.inFlight >= 3, 15_000);
    await first.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    const second = await start();
    void second;
    await waitUntilStored(environment, accepted, environment.telegram.botId);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'worker SIGKILL, restart', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);

  it('with a second worker alive: it takes the turns over', async () => {
    const gateway = await start({ ROLE: 'gateway', OPENAI_API_KEY: '' });
    const doomed = await start({ ROLE: 'worker' });
    environment.openai.settings.latencyMs = 30_000;
    const accepted = await sendBurst(() => gateway.url, [9201, 9202, 9203, 9204, 9205]);
    await environment.openai.waitFor(() => environment.openai.inFlight >= 5, 15_000);
    await start({ ROLE: 'worker' });
    await doomed.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    // the worker holds some of the sessions itself (placed on it): its requests answer now, not in 30 s
    environment.openai.endPauses();
    await waitUntilStored(environment, accepted, environment.telegram.botId);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'worker SIGKILL, second worker', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);

  it('the turns a ROLE=all process claimed as their messages arrived are taken over by a worker when it dies', async () => {
    // idle sessions: each message becomes the receiving process's own turn in its enqueue (redis/lua/enqueue.lua)
    const doomed = await start();
    await start({ ROLE: 'worker' });
    environment.openai.settings.latencyMs = 30_000;
    const accepted = await sendBurst(() => doomed.url, [9301, 9302, 9303, 9304, 9305]);
    await environment.openai.waitFor(() => environment.openai.inFlight >= 5, 15_000);
    await doomed.kill('SIGKILL');
    environment.openai.settings.latencyMs = 0;
    // the worker holds some of the sessions itself (placed on it): its requests answer now, not in 30 s
    environment.openai.endPauses();
    await waitUntilStored(environment, accepted, environment.telegram.botId);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'ROLE=all SIGKILL, claimed turns, worker alive', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);
});
