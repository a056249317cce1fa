import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { leaksAdminData, runAdminBypassProbes } from './support/admin-probes.js';
import { dashboardWriteHeaders } from './support/dashboard-token.js';
import { rawRequest } from './support/raw-http.js';

const USER = 'ops';
// a colon inside the password: only the first colon separates user and password
const PASSWORD = 'pw:with-colon';
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

let environment: E2eEnvironment;
let service: ServiceProcess;
let queue: Queue;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ ROLE: 'gateway', OPENAI_API_KEY: '', ADMIN_USER: USER, ADMIN_PASSWORD: PASSWORD }));
  queue = new Queue('inbound', { connection: environment.redis, prefix: environment.keys.bullmqPrefix });
});

afterAll(async () => {
  await queue?.close();
  await service?.stop();
  await environment?.close();
});

describe('the admin dashboard behind basic auth (raw requests to the built service)', () => {
  it('answers every encoded, normalized or absolute-form admin target without credentials with 401 or 404, and pauses nothing', async () => {
    const results = await runAdminBypassProbes(service.port);
    const refused = results.filter((result) => !result.leaked && (result.status === 401 || result.status === 404));
    expect(results.filter((result) => !refused.includes(result))).toEqual([]);
    // the ones that do reach an admin route are refused by the auth hook, not by luck of the router
    const statusOf = (name: string) => results.find((result) => result.name === name)?.status;
    for (const name of ['GET plain', 'GET plain entry page', 'GET percent-encoded a', 'GET percent-encoded entry page', 'GET absolute-form', 'HEAD percent-encoded', 'PUT plain', 'PUT percent-encoded', 'PUT absolute-form']) {
      expect({ name, status: statusOf(name) }).toEqual({ name, status: 401 });
    }
    expect(await queue.isPaused()).toBe(false);
  });

  it('refuses a wrong user, a wrong password, and malformed credentials, on plain and encoded targets', async () => {
    const attempts: Array<[string, Record<string, string>]> = [
      ['wrong user, right password', basic('intruder', PASSWORD)],
      ['right user, wrong password', basic(USER, 'nope')],
      ['right user, password prefix', basic(USER, 'pw')],
      ['right user, password plus a character', basic(USER, `${PASSWORD}x`)],
      ['user only', { Authorization: `Basic ${Buffer.from(USER).toString('base64')}` }],
      ['empty', { Authorization: 'Basic ' }],
      ['other scheme', { Authorization: `Bearer ${PASSWORD}` }],
      ['not base64', { Authorization: 'Basic %%%' }],
    ];
    // each kind of attempt from an address of its own: ten wrong passwords from one address lock it out (429)
    for (const [index, [name, headers]] of attempts.entries()) {
      const from = { localAddress: `127.0.${index + 10}.1` };
      for (const target of ['/admin/queues/api/queues', '/%61dmin/queues/api/queues']) {
        const response = await rawRequest(service.port, 'GET', target, headers, from);
        expect({ name, target, status: response.status, leaked: leaksAdminData(response) }).toEqual({ name, target, status: 401, leaked: false });
      }
      const pause = await rawRequest(service.port, 'PUT', '/%61dmin/queues/api/queues/inbound/pause', headers, from);
      expect({ name, status: pause.status }).toEqual({ name, status: 401 });
    }
    expect(await queue.isPaused()).toBe(false);
  });

  it('still serves the dashboard and its actions to the right credentials', async () => {
    const auth = basic(USER, PASSWORD);
    const api = await rawRequest(service.port, 'GET', '/admin/queues/api/queues', auth);
    expect(api.status).toBe(200);
    expect(api.body).toContain('"inbound"');
    const page = await rawRequest(service.port, 'GET', '/admin/queues', auth);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html');
    // the scheme name is case-insensitive (RFC 7617)
    expect((await rawRequest(service.port, 'GET', '/admin/queues/api/queues', { Authorization: auth.Authorization.replace('Basic', 'basic') })).status).toBe(200);

    // its write routes want the CSRF token its page hands out, as the console's forms do
    expect((await rawRequest(service.port, 'PUT', '/admin/queues/api/queues/inbound/pause', auth)).status).toBe(403);
    const write = await dashboardWriteHeaders(`http://127.0.0.1:${service.port}`, auth.Authorization);
    expect((await rawRequest(service.port, 'PUT', '/admin/queues/api/queues/inbound/pause', write)).status).toBe(200);
    expect(await queue.isPaused()).toBe(true);
    expect((await rawRequest(service.port, 'PUT', '/admin/queues/api/queues/inbound/resume', write)).status).toBe(200);
    expect(await queue.isPaused()).toBe(false);
  });

  it('locks an address out after ten wrong passwords (429 with Retry-After, the right password too), counted in /metrics', async () => {
    const guesser = { localAddress: '127.0.99.1' };
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => rawRequest(service.port, 'GET', '/admin/queues/api/queues', basic(USER, `guess ${index}`), guesser)),
    );
    const statuses = guesses.map((guess) => guess.status).sort();
    expect(statuses).toEqual([...Array(9).fill(401), ...Array(3).fill(429)]);
    for (const refused of guesses.filter((guess) => guess.status === 429)) expect(refused.head).toMatch(/\r\nretry-after: 900\r\n/i);

    expect((await rawRequest(service.port, 'GET', '/admin/queues/api/queues', basic(USER, PASSWORD), guesser)).status).toBe(429);
    expect((await rawRequest(service.port, 'GET', '/admin/queues/api/queues', basic(USER, PASSWORD), { localAddress: '127.0.99.2' })).status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
    expect(metrics).toMatch(/^bot_admin_login_failures_total\{outcome="refused"\} (\d+)$/m);
    expect(Number(/^bot_admin_login_failures_total\{outcome="locked"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
  });
});
