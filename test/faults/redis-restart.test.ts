import { afterAll, beforeAll, describe, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS, deliverLikeTelegram, waitUntilStored } from './support/fault-service.js';
import { auditTelegramLedger, expectNothingLostOrDoubled } from './support/ledger.js';
import { startPrivateRedis, type PrivateRedis } from './support/private-redis.js';

let environment: E2eEnvironment;
let redis: PrivateRedis;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  redis = await startPrivateRedis();
  service = await startServiceProcess(environment.env({ REDIS_URL: redis.url, TURN_LEASE_MS: '3000' }));
});

afterAll(async () => {
  if (process.env.FAULT_DEBUG) console.log(`SERVICE OUTPUT\n${service?.output()}`);
  await service?.stop();
  await redis?.stop();
  await environment?.close();
});

describe('fault: Redis restarts while turns are queued and running', () => {
  it('answers and stores every accepted message exactly once', async () => {
    environment.openai.settings.latencyMs = 1_500;
    const updates = Array.from({ length: 20 }, (_, index) => environment.telegram.makeUpdate.privateText(9300 + (index % 10), `redis restart ${index}`));
    const firstHalf = await Promise.all(updates.slice(0, 10).map((update) => deliverLikeTelegram(() => service.url, update)));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    const restarting = redis.restart(2_000);
    // these arrive while Redis is away: the gateway answers 503 and Telegram retries them
    const secondHalf = Promise.all(updates.slice(10).map((update) => deliverLikeTelegram(() => service.url, update, 60_000)));
    await restarting;
    const accepted = [...firstHalf, ...(await secondHalf)];
    environment.openai.settings.latencyMs = 0;
    await waitUntilStored(environment, accepted, environment.telegram.botId, 90_000);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'Redis restart under load', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);
});
