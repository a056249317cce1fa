import { afterAll, beforeAll, describe, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS, deliverLikeTelegram, waitUntilStored } from './support/fault-service.js';
import { auditTelegramLedger, expectNothingLostOrDoubled } from './support/ledger.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

let environment: E2eEnvironment;
let proxy: TcpProxy;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  const target = new URL(environment.databaseUrl);
  proxy = await startTcpProxy(Number(target.port || 5432), target.hostname);
  target.port = String(proxy.port);
  service = await startServiceProcess(environment.env({ DATABASE_URL: target.toString() }));
});

afterAll(async () => {
  if (process.env.FAULT_DEBUG) console.log(`SERVICE OUTPUT\n${service?.output()}`);
  await service?.stop();
  await proxy?.close();
  await environment?.close();
});

describe('fault: PostgreSQL is unreachable for 10 s while turns flush', () => {
  it('retries the flushes and loses nothing', async () => {
    environment.openai.settings.latencyMs = 500;
    const updates = Array.from({ length: 12 }, (_, index) => environment.telegram.makeUpdate.privateText(9400 + index, `database outage ${index}`));
    const accepted = await Promise.all(updates.map((update) => deliverLikeTelegram(() => service.url, update)));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    proxy.restore();
    environment.openai.settings.latencyMs = 0;
    await waitUntilStored(environment, accepted, environment.telegram.botId, 90_000);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'PostgreSQL down 10 s', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);
});
