import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { dashboardWriteHeaders } from './support/dashboard-token.js';

const authorization = `Basic ${Buffer.from('ops:pw').toString('base64')}`;
let environment: E2eEnvironment;
let service: ServiceProcess;
let queue: Queue;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw' }));
  queue = new Queue('inbound', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
});

afterAll(async () => {
  await queue?.close();
  await service?.stop();
  await environment?.close();
});

/** The dashboard's write routes the issue names: pause, retry and clean. */
const WRITES = ['/admin/queues/api/queues/inbound/pause', '/admin/queues/api/queues/inbound/retry/failed', '/admin/queues/api/queues/inbound/clean/completed'];
const put = (path: string, headers: Record<string, string>) => fetch(`${service.url}${path}`, { method: 'PUT', headers });

describe('the queue dashboard’s write routes behind the console’s guards', () => {
  it('refuse another site (Origin or Sec-Fetch-Site) with 403 and do nothing, with a valid token too', async () => {
    const valid = await dashboardWriteHeaders(service.url, authorization);
    for (const path of WRITES) {
      const crossSites: Array<Record<string, string>> = [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
      for (const crossSite of crossSites) {
        const response = await put(path, { ...valid, ...crossSite });
        expect({ path, crossSite, status: response.status }).toEqual({ path, crossSite, status: 403 });
        expect(((await response.json()) as { error: string }).error).toMatch(/^cross-site request refused/);
      }
    }
    expect(await queue.isPaused()).toBe(false);
  });

  it('refuse a request without the token the dashboard page hands out, or with a made-up one (403)', async () => {
    for (const path of WRITES) {
      expect({ path, status: (await put(path, { authorization })).status }).toEqual({ path, status: 403 });
      expect({ path, status: (await put(path, { authorization, 'x-xsrf-token': 'made-up' })).status }).toEqual({ path, status: 403 });
    }
    expect(await queue.isPaused()).toBe(false);
  });

  it('accept them from the dashboard page itself: same origin, with its token', async () => {
    const headers = { ...(await dashboardWriteHeaders(service.url, authorization)), origin: service.url, 'sec-fetch-site': 'same-origin' };
    expect((await put('/admin/queues/api/queues/inbound/pause', headers)).status).toBe(200);
    expect(await queue.isPaused()).toBe(true);
    expect((await put('/admin/queues/api/queues/inbound/resume', headers)).status).toBe(200);
    expect(await queue.isPaused()).toBe(false);
    expect((await put('/admin/queues/api/queues/inbound/clean/completed', headers)).status).toBe(200);
  });
});

describe('the queue dashboard page', () => {
  it('loads nothing from another site (its web fonts are dropped) and links back to the console', async () => {
    const page = await (await fetch(`${service.url}/admin/queues`, { headers: { authorization } })).text();
    expect(page).toContain('<div id="root">');
    expect(page).not.toMatch(/<link\b[^>]*href="https?:/i);
    expect(page).not.toMatch(/<script\b[^>]*src="https?:/i);
    expect(page).toMatch(/<a href="\/admin"[^>]*>← Operator console<\/a>/);
  });
});
