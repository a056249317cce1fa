import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS, deliverLikeTelegram, waitUntilStored } from './support/fault-service.js';
import { auditTelegramLedger, expectNothingLostOrDoubled } from './support/ledger.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

let environment: E2eEnvironment;
let proxy: TcpProxy;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  const api = new URL(environment.telegram.apiRoot);
  proxy = await startTcpProxy(Number(api.port));
  service = await startServiceProcess(environment.env({ TELEGRAM_API_ROOT: `http://127.0.0.1:${proxy.port}` }));
});

afterAll(async () => {
  await service?.stop();
  await proxy?.close();
  await environment?.close();
});

const answeredIn = (chatId: number) => () => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === chatId && !call.failed);

describe('fault: the platform fails on send', () => {
  it('429 with retry_after, 500 and connection resets: every message answered once', async () => {
    const accepted = [];
    environment.telegram.failNext('sendMessage', { status: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    accepted.push(await deliverLikeTelegram(() => service.url, environment.telegram.makeUpdate.privateText(9601, 'platform 429')));
    await waitFor(answeredIn(9601), { timeoutMs: 20_000 });

    environment.telegram.failNext('sendMessage', { status: 500, description: 'Internal Server Error' });
    accepted.push(await deliverLikeTelegram(() => service.url, environment.telegram.makeUpdate.privateText(9602, 'platform 500')));
    await waitFor(answeredIn(9602), { timeoutMs: 20_000 });

    // connection resets: the proxy drops every connection to the Bot API for a moment while the answer is being sent
    environment.openai.settings.latencyMs = 300;
    accepted.push(await deliverLikeTelegram(() => service.url, environment.telegram.makeUpdate.privateText(9603, 'platform reset')));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    proxy.restore();
    environment.openai.settings.latencyMs = 0;
    await waitFor(answeredIn(9603), { timeoutMs: 30_000 });

    await waitUntilStored(environment, accepted, environment.telegram.botId);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(Number(/^bot_platform_api_calls_total\{channel="telegram",result="rate_limited"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/^bot_platform_api_calls_total\{channel="telegram",result="error"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({ scenario: 'platform 429/500/reset on send', sql: environment.sql, telegram: environment.telegram, botId: environment.telegram.botId, accepted }),
    );
  }, FAULT_TIMEOUT_MS);
});
