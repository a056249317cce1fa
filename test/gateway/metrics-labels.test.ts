import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { randomWebhookPathsGrowth } from './support/metrics-probe.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const metricsText = async () => (await fetch(`${service.url}/metrics`)).text();

describe('/metrics labels (built service)', () => {
  it('stays small after 5,000 unauthenticated requests to random webhook paths, and holds no query string', async () => {
    const secret = `leak-${randomBytes(8).toString('hex')}`;
    const { before, after, text } = await randomWebhookPathsGrowth(service.url, 5_000, secret);
    expect(after - before).toBeLessThan(5 * 1024);
    for (const leaked of [secret, 'secret_token', '?q=', '/webhooks/x']) expect(text).not.toContain(leaked);
    expect(text).toMatch(/bot_webhook_requests_total\{channel="unmatched",status="404"\} 5000/);
  }, 120_000);

  it('labels real webhooks by channel from the matched route, not by the raw path', async () => {
    const requests = async () => Number(/bot_webhook_requests_total\{channel="telegram",status="401"\} (\d+)/.exec(await metricsText())?.[1] ?? 0);
    const acks = async () => Number(/bot_webhook_ack_seconds_count\{channel="telegram"\} (\d+)/.exec(await metricsText())?.[1] ?? 0);
    const [requestsBefore, acksBefore] = [await requests(), await acks()];
    const update = environment.telegram.makeUpdate.privateText(8101, 'hello');
    expect((await postTelegramUpdate(service.url, update, 'wrong-secret')).status).toBe(401);
    // the same route spelled with an encoded character and a query string
    const encoded = await fetch(`${service.url}/webhooks/%74elegram?secret_token=abc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'wrong-secret' },
      body: JSON.stringify(update),
    });
    expect(encoded.status).toBe(401);
    expect(await requests()).toBe(requestsBefore + 2);
    expect(await acks()).toBe(acksBefore + 2);
    const text = await metricsText();
    expect(text).not.toContain('%74elegram');
    expect(text).not.toContain('secret_token');
  });
});
