import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../gateway/support/raw-http.js';
import { auth, authorization, createConsoleFixture, HOSTILE, portOf, type ConsoleFixture } from './support/console-fixture.js';

let fixture: ConsoleFixture;
let app: FastifyInstance;

beforeAll(async () => {
  fixture = await createConsoleFixture();
  app = await fixture.app();
});

afterAll(async () => {
  await fixture?.close();
});

const get = (url: string, headers: Record<string, string> = auth) => app.inject({ method: 'GET', url, headers });
const transcriptUrl = (key: string, query = '') => `/admin/api/sessions/${encodeURIComponent(key)}/transcript${query}`;

describe('console authentication', () => {
  const targets = () => [
    '/admin',
    '/admin/',
    '/admin/sessions',
    `/admin/sessions/${encodeURIComponent(fixture.dm.key)}`,
    '/admin/usage',
    '/admin/pairings',
    '/admin/api/sessions',
    '/admin/api/sessions?q=4242',
    transcriptUrl(fixture.dm.key),
    '/admin/api/usage',
    '/admin/api/pairings',
    '/admin/schedules',
    '/admin/api/schedules',
    '/admin/api/overview',
    '/admin/sessions?user=telegram%3A4242',
    '/%61dmin/api/sessions',
    '/%61dmin',
    '/admin/%61pi/sessions',
    '/%61%64%6D%69%6E/api/usage',
    `http://127.0.0.1:${portOf(app)}/admin/api/sessions`,
    `http://127.0.0.1:${portOf(app)}/%61dmin/sessions`,
  ];
  const leaks = (body: string) => /"sessions"|"days"|"pairings"|<html|4242|C0OPS/i.test(body);

  it('answers 401 without credentials, however the path is spelled, and shows no data', async () => {
    for (const target of targets()) {
      const response = await rawRequest(portOf(app), 'GET', target);
      expect({ target, status: response.status, leaked: leaks(response.body) }).toEqual({ target, status: 401, leaked: false });
      expect(response.head).toMatch(/www-authenticate: Basic realm="admin"/i);
    }
    for (const target of ['/admin/pairings/approve', '/%61dmin/pairings/approve', '/admin/schedules/cancel', '/admin/approvals/deny']) {
      expect((await rawRequest(portOf(app), 'POST', target)).status).toBe(401);
    }
    expect(await fixture.pairing.pending()).toHaveLength(1);
  });

  it('answers 401 to wrong credentials', async () => {
    for (const headers of [
      { Authorization: authorization('ops', 'wrong') },
      { Authorization: authorization('intruder', 'console:secret') },
      { Authorization: authorization('ops', 'console') },
      { Authorization: 'Bearer console:secret' },
    ]) {
      for (const target of ['/admin/api/sessions', '/%61dmin/api/sessions', '/admin/sessions']) {
        const response = await rawRequest(portOf(app), 'GET', target, headers);
        expect({ target, status: response.status, leaked: leaks(response.body) }).toEqual({ target, status: 401, leaked: false });
      }
    }
  });

  it('serves every page and API route to the right credentials, also on encoded paths', async () => {
    for (const target of targets()) {
      const response = await rawRequest(portOf(app), 'GET', target, { Authorization: authorization() });
      expect({ target, status: response.status }).toEqual({ target, status: 200 });
    }
  });
});

describe('GET /admin/api/sessions', () => {
  it('lists sessions in the contract shape, newest activity first', async () => {
    const response = await get('/admin/api/sessions');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['nextCursor', 'sessions']);
    expect(body.nextCursor).toBeNull();
    expect(body.sessions).toHaveLength(2);
    const [latest, earlier] = body.sessions;
    // the group session was flushed last
    expect(latest).toEqual({
      key: fixture.group.key,
      channel: 'slack',
      chatId: 'C0OPS',
      title: 'Ops <Room> & "friends"',
      lastActivityAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      turns: 1,
      costUsd: 0.25,
    });
    expect(earlier).toEqual({ key: fixture.dm.key, channel: 'telegram', chatId: '4242', lastActivityAt: expect.any(String), turns: 2, costUsd: 0.003 });
    expect(Date.parse(latest.lastActivityAt)).toBeGreaterThanOrEqual(Date.parse(earlier.lastActivityAt));
  });

  it('searches by chat, user and text with q', async () => {
    const keys = async (q: string) => (await get(`/admin/api/sessions?q=${encodeURIComponent(q)}`)).json().sessions.map((session: { key: string }) => session.key);
    expect(await keys('c0ops')).toEqual([fixture.group.key]);
    expect(await keys('ops <room>')).toEqual([fixture.group.key]);
    expect(await keys('4242')).toEqual([fixture.dm.key]);
    expect(await keys('onerror=alert')).toEqual([fixture.dm.key]);
    expect(await keys('what time is it')).toHaveLength(2);
    expect(await keys('no such words anywhere')).toEqual([]);
  });

  it('finds a DM by its user’s name or @username, and narrows to a user, a chat or an agent as budgets name them', async () => {
    const keys = async (query: string) => {
      const response = await get(`/admin/api/sessions?${query}`);
      expect({ query, status: response.statusCode }).toEqual({ query, status: 200 });
      return response.json().sessions.map((session: { key: string }) => session.key).sort();
    };
    expect(await keys('q=ada%20lovelace')).toEqual([fixture.dm.key]);
    expect(await keys('q=%40ADA')).toEqual([fixture.dm.key]);
    expect(await keys('q=lovelace&agent=main')).toEqual([fixture.dm.key]);
    expect(await keys('user=telegram%3A4242')).toEqual([fixture.dm.key]);
    expect(await keys('user=slack%3A4242')).toEqual([]);
    expect(await keys('chat=slack%3AT1%3AC0OPS')).toEqual([fixture.group.key]);
    expect(await keys('chat=telegram%3Abot%3A4242&q=what%20time')).toEqual([fixture.dm.key]);
    expect(await keys('agent=main')).toEqual([fixture.dm.key, fixture.group.key].sort());
    expect(await keys('agent=support')).toEqual([]);
  });

  it('pages with limit and nextCursor until nextCursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(`/admin/api/sessions?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.statusCode).toBe(200);
      const body: { sessions: Array<{ key: string }>; nextCursor: string | null } = response.json();
      expect(body.sessions).toHaveLength(1);
      seen.push(...body.sessions.map((session) => session.key));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor && pages < 5);
    expect(pages).toBe(2);
    expect(seen).toEqual([fixture.group.key, fixture.dm.key]);
  });
});

describe('GET /admin/api/sessions/<key>/transcript', () => {
  it('returns the messages in order and each run with its spans, in the contract shape', async () => {
    const response = await get(transcriptUrl(fixture.dm.key));
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['messages', 'nextCursor', 'runs']);
    expect(body.messages).toHaveLength(8);
    expect(body.messages[0]).toEqual({ role: 'user', text: 'what time is it? (run-dm-1)', createdAt: '2025-01-01T10:00:00.000Z', runId: 'run-dm-1' });
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(body.messages[1].text).toBe('clock({})');
    expect(body.messages[2].text).toBe('10:00');
    expect(body.messages[4].text).toBe(HOSTILE);
    expect(body.runs.map((run: { id: string }) => run.id)).toEqual(['run-dm-1', 'run-dm-2']);
    expect(body.runs[0]).toEqual({
      id: 'run-dm-1',
      status: 'completed',
      startedAt: '2025-01-01T10:00:00.000Z',
      endedAt: '2025-01-01T10:00:01.500Z',
      costUsd: 0.0015,
      spans: [
        { kind: 'llm', name: 'openai:gpt-test', startedAt: '2025-01-01T10:00:00.000Z', durationMs: 120, inputTokens: 100, outputTokens: 20 },
        { kind: 'tool', name: 'clock', startedAt: '2025-01-01T10:00:00.130Z', durationMs: 3 },
      ],
    });
  });

  it('gives a failed tool call its error text', async () => {
    const body = (await get(transcriptUrl(fixture.group.key))).json();
    expect(body.runs[0].spans[1]).toEqual({ kind: 'tool', name: 'clock', startedAt: expect.any(String), durationMs: 3, error: 'ENOENT: no such file <notes.txt>' });
  });

  it('pages through messages with limit and cursor', async () => {
    const first = (await get(transcriptUrl(fixture.dm.key, '?limit=3'))).json();
    expect(first.messages).toHaveLength(3);
    expect(first.runs.map((run: { id: string }) => run.id)).toEqual(['run-dm-1']);
    expect(first.nextCursor).toBe('2');
    const second = (await get(transcriptUrl(fixture.dm.key, `?limit=10&cursor=${first.nextCursor}`))).json();
    expect(second.messages).toHaveLength(5);
    expect(second.messages[0].text).toBe('It is 10:00. (run-dm-1)');
    expect(second.nextCursor).toBeNull();
  });

  it('answers 404 for an unknown key', async () => {
    const response = await get(transcriptUrl('agent:main:telegram:bot:dm:nobody'));
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toContain('no session with the key');
  });
});

describe('GET /admin/api/usage', () => {
  it('sums tokens and cost per UTC day, agent and channel', async () => {
    const response = await get('/admin/api/usage?from=2026-03-01&to=2026-03-10');
    expect(response.statusCode).toBe(200);
    expect(response.json().days).toEqual([
      { day: '2026-03-09', agent: 'main', channel: 'slack', inputTokens: 150, outputTokens: 30, costUsd: 0.25 },
      { day: '2026-03-09', agent: 'main', channel: 'telegram', inputTokens: 150, outputTokens: 30, costUsd: 0.0015 },
    ]);
    expect((await get('/admin/api/usage?from=2025-01-01&to=2025-01-01')).json().days).toEqual([
      { day: '2025-01-01', agent: 'main', channel: 'telegram', inputTokens: 150, outputTokens: 30, costUsd: 0.0015 },
    ]);
    expect((await get('/admin/api/usage?from=2025-01-02&to=2026-01-01')).json().days).toEqual([]);
  });

  it('covers the last 30 days up to today (UTC) without parameters', async () => {
    const body = (await get('/admin/api/usage')).json();
    expect({ from: body.from, to: body.to }).toEqual({ from: '2026-02-09', to: '2026-03-10' });
    expect(body.days).toHaveLength(2);
  });
});

describe('bad parameters', () => {
  it.each([
    ['/admin/api/sessions?limit=0', /limit/],
    ['/admin/api/sessions?limit=201', /limit/],
    ['/admin/api/sessions?limit=ten', /limit/],
    ['/admin/api/sessions?cursor=not-a-cursor', /cursor/],
    [`/admin/api/sessions?q=${'x'.repeat(201)}`, /q/],
    ['/admin/api/sessions/x/transcript?limit=0', /limit/],
    ['/admin/api/sessions/x/transcript?cursor=-1', /cursor/],
    ['/admin/api/usage?from=2026-13-01', /from/],
    ['/admin/api/usage?from=2026-02-30', /from/],
    ['/admin/api/usage?to=yesterday', /to/],
    ['/admin/api/usage?from=2026-03-10&to=2026-03-01', /after/],
    ['/admin/api/usage?from=2024-01-01&to=2026-01-01', /at most 366/],
    ['/admin/sessions?limit=0', /limit/],
    ['/admin/usage?from=2026-03-10&to=2026-03-01', /after/],
    ['/admin/pairings?approved=ABCDEFGH&approved=HGFEDCBA', /approved/],
    ['/admin/api/sessions?user=4242', /user: <channel>:<userId> expected/],
    ['/admin/api/sessions?user=irc%3A4242', /user: the channel is one of telegram, slack, feishu/],
    ['/admin/api/sessions?chat=telegram%3Abot', /chat: <channel>:<accountId>:<chatId> expected/],
    ['/admin/api/sessions?user=telegram%3A1&chat=slack%3AT1%3AC1', /two different channels/],
    ['/admin/sessions?chat=telegram%3A%3A1', /chat/],
    ['/admin/api/schedules?limit=0', /limit/],
    ['/admin/api/schedules?cursor=bm90LWEtY2hhdA', /cursor/],
  ])('%s → 400 with a message naming the problem', async (url, problem) => {
    const response = await get(url);
    expect(response.statusCode).toBe(400);
    const message = url.startsWith('/admin/api/') ? response.json().error : response.body;
    expect(message).toMatch(problem);
    if (!url.startsWith('/admin/api/')) expect(response.body).toContain('<h1>Bad request</h1>');
  });
});

describe('HTML pages', () => {
  it('show hostile message text as text, in a page that allows no script', async () => {
    const response = await get(`/admin/sessions/${encodeURIComponent(fixture.dm.key)}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(response.headers['content-security-policy']).not.toMatch(/script-src/);
    expect(response.body).not.toMatch(/<script|<img/i);
    expect(response.body).toContain('&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62; &#38; &#60;img src&#61;x onerror&#61;alert(1)&#62;');
  });

  it('call people and chats by their names, with the ids beside them', async () => {
    const list = await get('/admin/sessions');
    expect(list.body).toContain(`<a href="/admin/sessions/${encodeURIComponent(fixture.dm.key)}">Ada Lovelace (@ada)</a>`);
    expect(list.body).toContain('<td>Ada Lovelace (@ada)<br><code>4242</code></td>');
    expect(list.body).not.toContain('Direct messages 4242');
    const transcript = await get(`/admin/sessions/${encodeURIComponent(fixture.dm.key)}`);
    expect(transcript.body).toContain('<h1>Ada Lovelace (@ada) · telegram</h1>');
    expect(transcript.body).toContain('<dt>User</dt><dd>Ada Lovelace (@ada)<br><code>4242</code></dd>');
    const found = await get('/admin/sessions?q=lovelace');
    expect(found.body).toContain('1 session matching “lovelace”.');

    // a budget row's link: the filter is said, kept in the search form and in the pager
    const narrowed = await get('/admin/sessions?user=telegram%3A4242&limit=1');
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.body).toContain('Showing the direct messages of telegram user 4242.');
    expect(narrowed.body).toContain('<input type="hidden" name="user" value="telegram:4242">');
    expect(narrowed.body).toContain('Ada Lovelace (@ada)</a>');
    expect(narrowed.body).not.toContain('Ops &#60;Room&#62;');
    const empty = await get('/admin/sessions?agent=nobody');
    expect(empty.body).toContain('<p>No sessions.</p>');
  });

  it('escape titles, tool errors, search terms and pairing names', async () => {
    const list = await get(`/admin/sessions?q=${encodeURIComponent('<script>x</script>')}`);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('<script>x');
    expect(list.body).toContain('&#60;script&#62;x&#60;/script&#62;');
    const all = await get('/admin/sessions');
    expect(all.body).toContain('Ops &#60;Room&#62; &#38; &#34;friends&#34;');
    expect(all.body).not.toContain('<Room>');
    const group = await get(`/admin/sessions/${encodeURIComponent(fixture.group.key)}`);
    expect(group.body).toContain('ENOENT: no such file &#60;notes.txt&#62;');
    const pairings = await get('/admin/pairings');
    expect(pairings.body).toContain('Mallory &#60;b&#62;');
    expect(pairings.body).not.toContain('<b>');
  });

  it('never escape the console’s own markup a second time', async () => {
    const ownTags = /&#60;\/?(time|code|span|a|div|p|tr|td|th|svg|rect|title|form|input|button|details|summary|ul|li|strong|br|table)(&#62;|\s)/;
    for (const url of [
      '/admin',
      '/admin/sessions',
      `/admin/sessions/${encodeURIComponent(fixture.dm.key)}`,
      `/admin/sessions/${encodeURIComponent(fixture.group.key)}`,
      '/admin/usage?from=2026-03-01&to=2026-03-10',
      '/admin/pairings',
      '/admin/schedules',
      '/admin/sessions?user=telegram%3A4242',
    ]) {
      const body = (await get(url)).body;
      expect({ url, doubleEscaped: ownTags.exec(body)?.[0] }).toEqual({ url, doubleEscaped: undefined });
    }
    expect((await get('/admin/sessions')).body).toContain('<td><time datetime="');
  });

  it('render every section with landmarks, the navigation and a heading', async () => {
    for (const [url, heading] of [
      ['/admin', 'Operator console'],
      ['/admin/sessions', 'Sessions'],
      ['/admin/usage?from=2026-03-01&to=2026-03-10', 'Cost and tokens'],
      ['/admin/pairings', 'Pairing requests'],
      ['/admin/schedules', 'Scheduled tasks'],
    ] as const) {
      const body = (await get(url)).body;
      expect(body).toMatch(/^<!doctype html>/);
      expect(body).toContain('<html lang="en">');
      expect(body).toContain('<meta name="viewport"');
      expect(body).toContain('<main id="main"');
      expect(body).toContain('<nav aria-label="Console sections">');
      for (const section of ['Sessions', 'Cost', 'Schedules', 'Approvals', 'Pairings', 'Budgets', 'Queues']) expect(body).toContain(`>${section}</a>`);
      expect(body).toContain(`<h1>${heading}</h1>`);
    }
  });

  it('draw the cost chart as SVG with a text alternative and the figures in tables', async () => {
    const body = (await get('/admin/usage?from=2026-03-01&to=2026-03-10')).body;
    expect(body).toMatch(/<svg class="chart"[^>]*role="img"[^>]*aria-labelledby="usage-chart-title usage-chart-description"/);
    expect(body).toContain('<desc id="usage-chart-description">From 2026-03-01 to 2026-03-10: $0.252 in all; the most expensive day was 2026-03-09 with $0.252.');
    expect(body).toContain('<caption>Cost per day</caption>');
    expect(body).toContain('<rect class="channel-slack"');
  });

  it('draw a run’s spans as a timeline with a table', async () => {
    const body = (await get(`/admin/sessions/${encodeURIComponent(fixture.dm.key)}`)).body;
    expect(body).toContain('<details class="spans"><summary>Spans of this run: 1 LLM call, 1 tool call</summary>');
    expect(body).toMatch(/<svg class="timeline"[^>]*role="img"/);
    expect(body).toContain('<rect class="kind-llm"');
    expect(body).toContain('<caption>Spans of run <code>run-dm-1</code></caption>');
  });
});
