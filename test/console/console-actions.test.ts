import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { consoleSections, html, type ConsoleSection } from '../../src/gateway/console/index.js';
import { auth, authorization, createConsoleFixture, type ConsoleFixture } from './support/console-fixture.js';

let fixture: ConsoleFixture;
let app: FastifyInstance;
let readOnlyApp: FastifyInstance;

beforeAll(async () => {
  fixture = await createConsoleFixture();
  app = await fixture.app({ publicUrl: 'https://bot.example.com' });
  readOnlyApp = await fixture.app({ readOnly: true });
});

afterAll(async () => {
  await fixture?.close();
});

interface Form {
  token: string;
  cookie: string;
  code: string;
}

/** What a browser holds after opening the pairings page: the form's token and code, and the CSRF cookie. */
async function openPairings(on = app, headers: Record<string, string> = auth): Promise<Form> {
  const page = await on.inject({ method: 'GET', url: '/admin/pairings', headers });
  expect(page.statusCode).toBe(200);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  const code = /name="code" value="([^"]+)"/.exec(page.body)?.[1];
  const cookie = page.cookies.find((entry) => entry.name === 'console_csrf');
  expect(token && code && cookie).toBeTruthy();
  expect(cookie).toMatchObject({ path: '/admin', httpOnly: true, sameSite: 'Strict' });
  return { token: token!, code: code!, cookie: cookie!.value };
}

function approve(form: Partial<Form> & { code: string }, headers: Record<string, string> = {}, on = app) {
  const body = new URLSearchParams({ code: form.code, ...(form.token !== undefined ? { _csrf: form.token } : {}) }).toString();
  return on.inject({
    method: 'POST',
    url: '/admin/pairings/approve',
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    ...(form.cookie !== undefined ? { cookies: { console_csrf: form.cookie } } : {}),
    payload: body,
  });
}

const pendingCodes = async () => (await fixture.pairing.pending()).map((request) => request.code);

describe('CSRF protection of the Approve form', () => {
  beforeEach(async () => {
    if ((await fixture.pairing.pending()).length === 0) {
      await fixture.pairing.request({ channel: 'telegram', accountId: 'bot', userId: String(600 + Math.floor(Math.random() * 1000)), userName: 'Next' });
    }
  });

  it('refuses a post without a token, with a wrong token, without the cookie, or with another user’s token', async () => {
    const form = await openPairings();
    const other = await openPairings(app, { authorization: authorization('ops', 'console:secret') });
    const attempts = [
      ['no token', approve({ code: form.code, cookie: form.cookie })],
      ['empty token', approve({ code: form.code, cookie: form.cookie, token: '' })],
      ['wrong token', approve({ code: form.code, cookie: form.cookie, token: `${form.token.slice(0, -2)}xx` })],
      ['token without its cookie', approve({ code: form.code, token: form.token })],
      ['token with another cookie', approve({ code: form.code, token: form.token, cookie: 'forged-secret' })],
      ['token from another browser', approve({ code: form.code, token: other.token, cookie: form.cookie })],
    ] as const;
    for (const [name, pending] of attempts) {
      const response = await pending;
      expect({ name, status: response.statusCode }).toEqual({ name, status: 403 });
      expect(response.body).toContain('CSRF token');
    }
    expect(await pendingCodes()).toContain(form.code);
  });

  it('refuses a cross-site post even with a valid token', async () => {
    const form = await openPairings();
    const crossSite: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'http://127.0.0.1.evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of crossSite) {
      const response = await approve(form, headers);
      expect({ headers, status: response.statusCode }).toEqual({ headers, status: 403 });
      expect(response.body).toContain('cross-site request refused');
    }
    expect(await pendingCodes()).toContain(form.code);
  });

  it('approves with the form’s token from the same origin, then shows who was approved', async () => {
    const form = await openPairings();
    // a browser's own Origin and Host (a default port written out in Host still matches)
    const response = await approve(form, { origin: 'http://localhost', host: 'localhost:80', 'sec-fetch-site': 'same-origin' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/admin/pairings?approved=${form.code}`);
    expect(await pendingCodes()).not.toContain(form.code);
    const page = await app.inject({ method: 'GET', url: response.headers.location as string, headers: auth });
    expect(page.body).toMatch(/Approved telegram:\d+ \(.+\): the bot answers this user from now on\./);
    // the same form again: nothing left to approve
    const again = await approve(form);
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('was already approved');
  });

  it('accepts PUBLIC_URL’s origin and a client that sends no Origin (the token still decides)', async () => {
    const viaProxy = await openPairings();
    expect((await approve(viaProxy, { origin: 'https://bot.example.com' })).statusCode).toBe(303);
    await fixture.pairing.request({ channel: 'slack', accountId: 'T1', userId: 'U0NEW', userName: undefined });
    const plain = await openPairings();
    expect((await approve(plain)).statusCode).toBe(303);
  });

  it('tells an unknown code apart, with 404', async () => {
    const form = await openPairings();
    const response = await approve({ ...form, code: 'ZZZZ-ZZZZ' });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('No pairing request has the code ZZZZ-ZZZZ.');
  });
});

describe('ADMIN_READONLY', () => {
  it('hides the Approve button and sets no CSRF cookie', async () => {
    const page = await readOnlyApp.inject({ method: 'GET', url: '/admin/pairings', headers: auth });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('read-only');
    expect(page.body).toContain('<caption>Pending pairing requests');
    expect(page.body).not.toMatch(/<form[^>]*method="post"|<button[^>]*>Approve|_csrf/);
    expect(page.cookies).toEqual([]);
  });

  it('refuses every state-changing request with 403, even with a valid token', async () => {
    const [code] = await pendingCodes();
    const form = await openPairings();
    const response = await approve({ ...form, code: code! }, {}, readOnlyApp);
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('read-only');
    const json = await readOnlyApp.inject({ method: 'POST', url: '/admin/pairings/approve', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify({ code }) });
    expect(json.statusCode).toBe(403);
    expect(await pendingCodes()).toContain(code);
  });
});

describe('the section registry', () => {
  const done: string[] = [];
  /** What a later change adds (e.g. scheduled tasks): a page with an action, and nothing else touched. */
  const tasksSection: ConsoleSection = {
    id: 'tasks',
    title: 'Scheduled tasks',
    description: 'Tasks the agents scheduled.',
    register(routes, context) {
      routes.get('/tasks', async (_request, reply) =>
        context.page(reply, {
          section: 'tasks',
          title: 'Scheduled tasks',
          body: html`<p>One task.</p>!${context.actionForm(reply, { action: '/admin/tasks/cancel', fields: { id: 'task-1' }, label: 'Cancel', detail: 'task-1' })}`,
        }),
      );
      routes.post('/tasks/cancel', async (request, reply) => {
        done.push(String((request.body as Record<string, unknown>).id));
        return reply.redirect('/admin/tasks', 303);
      });
    },
  };

  it('puts a new section in the navigation of every page and guards its actions like the others', async () => {
    const extended = await fixture.app({ sections: [...consoleSections, tasksSection] });
    for (const url of ['/admin', '/admin/sessions', '/admin/tasks']) {
      const body = (await extended.inject({ method: 'GET', url, headers: auth })).body;
      expect(body).toMatch(/<a href="\/admin\/tasks"( aria-current="page")?>Scheduled tasks<\/a>/);
    }
    const page = await extended.inject({ method: 'GET', url: '/admin/tasks', headers: auth });
    expect(page.body).toContain('<a href="/admin/tasks" aria-current="page">Scheduled tasks</a>');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const cookie = page.cookies.find((entry) => entry.name === 'console_csrf')!.value;
    const post = (payload: string, cookies: Record<string, string> = { console_csrf: cookie }) =>
      extended.inject({ method: 'POST', url: '/admin/tasks/cancel', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, cookies, payload });
    expect((await post('id=task-1')).statusCode).toBe(403);
    expect((await post(`id=task-1&_csrf=${encodeURIComponent(token)}`)).statusCode).toBe(303);
    expect(done).toEqual(['task-1']);

    const readOnly = await fixture.app({ readOnly: true, sections: [...consoleSections, tasksSection] });
    const readOnlyPage = await readOnly.inject({ method: 'GET', url: '/admin/tasks', headers: auth });
    expect(readOnlyPage.body).not.toContain('Cancel');
    expect((await readOnly.inject({ method: 'POST', url: '/admin/tasks/cancel', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, payload: `id=task-1&_csrf=${encodeURIComponent(token)}`, cookies: { console_csrf: cookie } })).statusCode).toBe(403);
    expect(done).toEqual(['task-1']);
  });

  it('refuses ids that would collide with the console’s own routes', async () => {
    await expect(fixture.app({ sections: [...consoleSections, { ...tasksSection, id: 'api' }] })).rejects.toThrow(/not allowed/);
    await expect(fixture.app({ sections: [...consoleSections, { ...tasksSection, id: 'sessions' }] })).rejects.toThrow(/twice/);
  });
});
