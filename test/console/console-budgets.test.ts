import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { BudgetStore, KeySpace } from '../../src/redis/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLedger, BudgetSettings, BudgetsOverview } from '../../src/budgets/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';
import { auth, createConsoleFixture, HOSTILE, NOW, type ConsoleFixture } from './support/console-fixture.js';
import { DOUBLE_ESCAPED_MARKUP } from './support/console-forms.js';

let fixture: ConsoleFixture;
let app: FastifyInstance;
let readOnlyApp: FastifyInstance;
let bare: FastifyInstance;
const redis = new Redis(TEST_REDIS_URL);
const prefix = uniqueName('console-budgets');
const settings = new BudgetSettings(new BudgetStore(redis, new KeySpace(prefix, 1, false)));

beforeAll(async () => {
  fixture = await createConsoleFixture();
  const ledger = new BudgetLedger(new BudgetStore(redis, new KeySpace(prefix, 1, false)));
  const budgets = new BudgetsOverview({
    ledger,
    settings,
    defaults: { userDailyUsd: 2 },
    agents: [
      { id: 'main', budgets: { agentDailyUsd: 10 } },
      { id: 'quiet', budgets: {} },
    ],
    clock: () => NOW,
  });
  const spend = async (user: string, chat: string, usd: number) => {
    const outcome = await ledger.reserve({ user, chat, agent: 'main' }, {}, 1, NOW);
    if (outcome.kind !== 'reserved') throw new Error('not reserved');
    await ledger.settle(outcome.reservation, usd, NOW);
  };
  await spend('telegram:4242', 'telegram:bot:4242', 0.25);
  await spend(`slack:${HOSTILE}`, 'slack:T1:C0OPS', 0.5);
  app = await fixture.app({ budgets });
  readOnlyApp = await fixture.app({ budgets, readOnly: true });
  bare = await fixture.app();
});

afterAll(async () => {
  const keys = [...(await redis.keys(`{${prefix}:*`)), ...(await redis.keys(`${prefix}:*`))];
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await fixture?.close();
});

async function openBudgets(on = app) {
  const page = await on.inject({ method: 'GET', url: '/admin/budgets', headers: auth });
  expect(page.statusCode).toBe(200);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  const cookie = page.cookies.find((entry) => entry.name === 'console_csrf')?.value;
  return { page, token, cookie };
}

function save(fields: Record<string, string>, form: { token?: string | undefined; cookie?: string | undefined }, headers: Record<string, string> = {}, on = app) {
  return on.inject({
    method: 'POST',
    url: '/admin/budgets',
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    ...(form.cookie !== undefined ? { cookies: { console_csrf: form.cookie } } : {}),
    payload: new URLSearchParams({ ...fields, ...(form.token !== undefined ? { _csrf: form.token } : {}) }).toString(),
  });
}

describe('the Budgets section', () => {
  it('shows the limits by level and today’s spend with names, ids escaped, and links to the sessions', async () => {
    const { page, token } = await openBudgets();
    expect(page.body).toContain('<caption>Daily limits in US dollars (UTC days)</caption>');
    expect(page.body).toMatch(/<th scope="row">Per user<\/th><td class="number">\$2\.00<\/td><td class="number">—<\/td><td class="number">\$2\.00<\/td>/);
    expect(page.body).toContain('<code>main</code> (agent $10.00)');
    expect(page.body).not.toContain('<code>quiet</code>');
    expect(page.body).toContain('Spent today (2026-03-10)');
    expect(page.body).toContain('<caption>Spent today, most first (against the default limits)</caption>');
    expect(DOUBLE_ESCAPED_MARKUP.exec(page.body)?.[0]).toBeUndefined();
    expect(page.body).toContain('<p role="status">5 budgets with spend today.</p>');
    // a user and a DM chat by the user's name, a group by its title; each links to its sessions
    expect(page.body).toContain(
      '<td>User</td>\n<th scope="row">Ada Lovelace (@ada)<br><code>telegram:4242</code></th>\n<td class="number">$0.25 <span class="badge">13 % of $2.00</span></td>\n<td><a href="/admin/sessions?user&#61;telegram%3A4242">Sessions<span class="visually-hidden"> of Ada Lovelace (@ada)</span></a></td>',
    );
    expect(page.body).toContain('<th scope="row">Ada Lovelace (@ada)<br><code>telegram:bot:4242</code></th>');
    expect(page.body).toContain(`<a href="/admin/sessions/${encodeURIComponent(fixture.dm.key)}">Sessions`);
    expect(page.body).toContain('<th scope="row">Ops &#60;Room&#62; &#38; &#34;friends&#34;<br><code>slack:T1:C0OPS</code></th>');
    expect(page.body).toContain('<th scope="row"><code>main</code></th>\n<td class="number">$0.75</td>');
    expect(page.body).toContain('<a href="/admin/sessions?agent&#61;main">');
    expect(page.body).not.toContain(HOSTILE);
    expect(page.body).toContain('<code>slack:&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62; &#38; &#60;img');
    expect(token).toBeTruthy();

    // the user's link leads to the user's sessions
    const sessions = await app.inject({ method: 'GET', url: '/admin/sessions?user=telegram%3A4242', headers: auth });
    expect(sessions.body).toContain(`href="/admin/sessions/${encodeURIComponent(fixture.dm.key)}"`);
  });

  it('pages today’s spend and searches it by id, name, @username and title', async () => {
    const ids = async (query: string) => {
      const response = await app.inject({ method: 'GET', url: `/admin/api/budgets?${query}`, headers: auth });
      expect({ query, status: response.statusCode }).toEqual({ query, status: 200 });
      const body = response.json();
      return { ids: body.spend.map((row: { id: string }) => row.id), total: body.total, page: body.page, pageCount: body.pageCount };
    };
    expect(await ids('limit=2')).toEqual({ ids: ['main', `slack:${HOSTILE}`], total: 5, page: 1, pageCount: 3 });
    expect(await ids('limit=2&page=3')).toEqual({ ids: ['telegram:bot:4242'], total: 5, page: 3, pageCount: 3 });
    expect((await ids('limit=2&page=99')).page).toBe(3);
    expect((await ids('q=lovelace')).ids).toEqual(['telegram:4242', 'telegram:bot:4242']);
    expect((await ids('q=%40ADA')).ids).toEqual(['telegram:4242', 'telegram:bot:4242']);
    expect((await ids('q=ops%20%3Croom')).ids).toEqual(['slack:T1:C0OPS']);
    expect((await ids('q=c0ops')).ids).toEqual(['slack:T1:C0OPS']);
    expect((await ids('q=4242&scope=user')).ids).toEqual(['telegram:4242']);
    expect((await ids('scope=agent')).ids).toEqual(['main']);
    expect(await ids('q=nobody%20at%20all')).toEqual({ ids: [], total: 0, page: 1, pageCount: 1 });

    const first = await app.inject({ method: 'GET', url: '/admin/budgets?limit=2', headers: auth });
    expect(first.body).toContain('<p role="status">5 budgets with spend today, page 1 of 3.</p>');
    expect(first.body).toContain('<a rel="next" href="/admin/budgets?page&#61;2&#38;limit&#61;2">Next page</a>');
    expect(first.body).not.toContain('Previous page');
    const second = await app.inject({ method: 'GET', url: '/admin/budgets?limit=2&page=2', headers: auth });
    expect(second.body).toContain('<a rel="prev" href="/admin/budgets?limit&#61;2">Previous page</a>');
    const searched = await app.inject({ method: 'GET', url: '/admin/budgets?q=lovelace&scope=chat', headers: auth });
    expect(searched.body).toContain('<p role="status">1 matching budget with spend today.</p>');
    expect(searched.body).toContain('value="lovelace"');
    expect(searched.body).toContain('<option value="chat" selected>Chats</option>');
    for (const bad of ['scope=team', 'page=0', 'limit=500']) {
      expect((await app.inject({ method: 'GET', url: `/admin/api/budgets?${bad}`, headers: auth })).statusCode).toBe(400);
    }
  });

  it('serves the same as JSON', async () => {
    const response = await app.inject({ method: 'GET', url: '/admin/api/budgets', headers: auth });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.day).toBe('2026-03-10');
    expect(body.limits).toMatchObject({ environment: { userDailyUsd: 2 }, effective: { userDailyUsd: 2 }, agents: [{ id: 'main', limits: { agentDailyUsd: 10 } }] });
    expect(body.spend).toEqual([
      { scope: 'agent', id: 'main', spentUsd: 0.75, sessionsPath: '/admin/sessions?agent=main' },
      { scope: 'user', id: `slack:${HOSTILE}`, spentUsd: 0.5, sessionsPath: `/admin/sessions?${new URLSearchParams({ user: `slack:${HOSTILE}` })}` },
      { scope: 'chat', id: 'slack:T1:C0OPS', name: 'Ops <Room> & "friends"', spentUsd: 0.5, sessionsPath: `/admin/sessions/${encodeURIComponent(fixture.group.key)}` },
      { scope: 'user', id: 'telegram:4242', name: 'Ada Lovelace (@ada)', spentUsd: 0.25, sessionsPath: '/admin/sessions?user=telegram%3A4242' },
      { scope: 'chat', id: 'telegram:bot:4242', name: 'Ada Lovelace (@ada)', spentUsd: 0.25, sessionsPath: `/admin/sessions/${encodeURIComponent(fixture.dm.key)}` },
    ]);
    expect(body).toMatchObject({ total: 5, page: 1, pageCount: 1 });
  });

  it('saves limits with the form’s token from the same origin; an empty field clears one; a bad number is a 400', async () => {
    const form = await openBudgets();
    const response = await save({ userDailyUsd: '0.75', chatDailyUsd: '3', agentDailyUsd: '' }, form, { origin: 'http://localhost', host: 'localhost:80' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/admin/budgets?saved=1');
    expect(await settings.overrides()).toEqual({ userDailyUsd: 0.75, chatDailyUsd: 3 });
    const saved = await app.inject({ method: 'GET', url: response.headers.location as string, headers: auth });
    expect(saved.body).toContain('Saved: the new limits apply');
    expect(saved.body).toMatch(/<th scope="row">Per user<\/th><td class="number">\$2\.00<\/td><td class="number">\$0\.75<\/td><td class="number">\$0\.75<\/td>/);
    expect(saved.body).toContain('name="chatDailyUsd" min="0" step="any" inputmode="decimal" value="3"');

    const cleared = await save({ userDailyUsd: '' }, await openBudgets());
    expect(cleared.statusCode).toBe(303);
    expect(await settings.overrides()).toEqual({ chatDailyUsd: 3 });

    for (const bad of ['-1', 'ten', '1e3', 'Infinity']) {
      const refused = await save({ chatDailyUsd: bad }, await openBudgets());
      expect({ bad, status: refused.statusCode }).toEqual({ bad, status: 400 });
      expect(refused.body).toContain('chatDailyUsd: a number of US dollars');
    }
    expect(await settings.overrides()).toEqual({ chatDailyUsd: 3 });
  });

  it('refuses a post without the token or from another site', async () => {
    const form = await openBudgets();
    const attempts = [
      save({ chatDailyUsd: '9' }, { cookie: form.cookie }),
      save({ chatDailyUsd: '9' }, { token: form.token }),
      save({ chatDailyUsd: '9' }, form, { origin: 'https://evil.example' }),
      save({ chatDailyUsd: '9' }, form, { 'sec-fetch-site': 'cross-site' }),
    ];
    for (const response of await Promise.all(attempts)) expect(response.statusCode).toBe(403);
    expect(await settings.overrides()).toEqual({ chatDailyUsd: 3 });
  });

  it('is view-only with ADMIN_READONLY: no form, and a post is refused even with a valid token', async () => {
    const { page, token } = await openBudgets(readOnlyApp);
    expect(page.body).toContain('<caption>Daily limits in US dollars (UTC days)</caption>');
    expect(page.body).not.toMatch(/<form[^>]*method="post"|Save limits|_csrf/);
    expect(token).toBeUndefined();
    const form = await openBudgets();
    const response = await save({ chatDailyUsd: '9' }, form, {}, readOnlyApp);
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('read-only');
    expect(await settings.overrides()).toEqual({ chatDailyUsd: 3 });
  });

  it('says budgets are not available where the process has none', async () => {
    const response = await bare.inject({ method: 'GET', url: '/admin/api/budgets', headers: auth });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'budgets are not available in this process' });
  });
});
