import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { dashboardWriteHeaders } from '../gateway/support/dashboard-token.js';

let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  environment = await createE2eEnvironment();
});

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await environment?.close();
});

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

describe('operations', () => {
  it('runs gateway and worker as separate processes, with the dashboard behind basic auth', async () => {
    const gateway = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw' }));
    services.push(gateway);
    await postTelegramUpdate(gateway.url, environment.telegram.makeUpdate.privateText(5001, 'split roles'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sentTo(5001)).toHaveLength(0); // no worker yet: the message waits in the queue
    const worker = await startServiceProcess(environment.env({ ROLE: 'worker' }));
    services.push(worker);
    const [sent] = await waitFor(() => (sentTo(5001).length > 0 ? sentTo(5001) : undefined));
    expect(sent!.params.text).toBe('You said: split roles');
    // the worker process serves no webhooks
    expect((await postTelegramUpdate(worker.url, environment.telegram.makeUpdate.privateText(5001, 'x'))).status).toBe(404);

    expect((await fetch(`${gateway.url}/admin/queues`)).status).toBe(401);
    const wrong = await fetch(`${gateway.url}/admin/queues`, { headers: { authorization: `Basic ${btoa('ops:nope')}` } });
    expect(wrong.status).toBe(401);
    const page = await fetch(`${gateway.url}/admin/queues`, { headers: { authorization: `Basic ${btoa('ops:pw')}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const api = await fetch(`${gateway.url}/admin/queues/api/queues`, { headers: { authorization: `Basic ${btoa('ops:pw')}` } });
    expect(api.status).toBe(200);
    const queues = JSON.stringify(await api.json());
    expect(queues).toContain('inbound');
    // job data carries routing only: no message text, tokens or secrets
    for (const secret of [environment.telegram.token, 'sk-test', 'split roles']) expect(queues).not.toContain(secret);
    await Promise.all(services.splice(0).map((service) => service.stop()));
  });

  it('offers a read-only dashboard to operators when ADMIN_READONLY=true', async () => {
    const auth = { authorization: `Basic ${btoa('ops:pw')}` };
    const readOnly = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw', ADMIN_READONLY: 'true' }));
    services.push(readOnly);
    expect((await fetch(`${readOnly.url}/admin/queues/api/queues`, { headers: auth })).status).toBe(200);
    const pause = await fetch(`${readOnly.url}/admin/queues/api/queues/inbound/pause`, { method: 'PUT', headers: auth });
    expect(pause.status).toBe(405);
    const writable = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw' }));
    services.push(writable);
    // a write needs the CSRF token the dashboard page hands out (its XSRF-TOKEN cookie)
    const write = await dashboardWriteHeaders(writable.url, auth.authorization);
    const paused = await fetch(`${writable.url}/admin/queues/api/queues/inbound/pause`, { method: 'PUT', headers: write });
    expect(paused.status).toBe(200);
    await fetch(`${writable.url}/admin/queues/api/queues/inbound/resume`, { method: 'PUT', headers: write });
    await Promise.all(services.splice(0).map((service) => service.stop()));
  });

  it('lets a running turn finish on SIGTERM, then exits with code 0', async () => {
    const service = await startServiceProcess(environment.env());
    services.push(service);
    environment.openai.settings.latencyMs = 1_500;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(5002, 'finish before you go'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    const code = await service.stop();
    environment.openai.settings.latencyMs = 0;
    expect(code).toBe(0);
    expect(sentTo(5002).map((call) => call.params.text)).toEqual(['You said: finish before you go']);
    const stored = (await environment.storedMessages()).filter((row) => row.session_key.endsWith(':dm:5002'));
    expect(stored.map((row) => row.role)).toEqual(['user', 'assistant']);
  });
});
