import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS, deliverLikeTelegram, waitUntilStored } from './support/fault-service.js';
import { auditTelegramLedger, expectNothingLostOrDoubled, type AcceptedMessage } from './support/ledger.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ LOG_LEVEL: 'error' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

describe('fault: a burst of 1,000 webhooks from 200 sessions in 10 s', () => {
  it('answers and stores every message exactly once', async () => {
    environment.openai.settings.latencyMs = 50;
    const sessions = 200;
    const total = 1_000;
    const started = Date.now();
    const deliveries: Array<Promise<AcceptedMessage>> = [];
    for (let index = 0; index < total; index++) {
      const due = started + (index * 10_000) / total;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const update = environment.telegram.makeUpdate.privateText(20_000 + (index % sessions), `burst message ${index}`);
      deliveries.push(deliverLikeTelegram(() => service.url, update));
    }
    const accepted = await Promise.all(deliveries);
    expect(Date.now() - started).toBeLessThan(15_000);
    await waitUntilStored(environment, accepted, environment.telegram.botId, 120_000);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'burst 1,000 webhooks / 200 sessions', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);
});
