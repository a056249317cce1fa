import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/core/inbound-message.js';
import { createLogger } from '../../src/observability/logger.js';
import { ScheduleQueue, ScheduleService } from '../../src/schedules/index.js';
import { findConsoleTask, type SessionRow } from '../../src/store/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';
import { auth, createConsoleFixture, HOSTILE, NOW, type ConsoleFixture } from './support/console-fixture.js';
import { DOUBLE_ESCAPED_MARKUP, openPage, postForm } from './support/console-forms.js';

let fixture: ConsoleFixture;
let app: FastifyInstance;
let readOnlyApp: FastifyInstance;
let listOnlyApp: FastifyInstance;
const redis = new Redis(TEST_REDIS_URL);
const prefix = uniqueName('console-schedules');
const queue = new ScheduleQueue(redis, prefix);
let service: ScheduleService;
const ids: Record<string, string> = {};

const conversationOf = (session: SessionRow): ConversationRef => ({
  channel: session.channel,
  accountId: session.accountId,
  chatId: session.chatId,
  chatType: session.chatType,
  messageId: '1',
});

beforeAll(async () => {
  fixture = await createConsoleFixture();
  const db = fixture.database.db;
  service = new ScheduleService(db, queue, { minIntervalSeconds: 60, maxPerChat: 20 }, createLogger({ level: 'silent' }), () => NOW);
  const creator = (session: SessionRow, userId: string, userName?: string) => ({
    sessionKey: session.key,
    conversation: conversationOf(session),
    agentId: 'main',
    userId,
    ...(userName ? { userName } : {}),
  });
  ids.water = (await service.create(creator(fixture.dm, '4242', 'Ada (old name)'), { prompt: 'Remind me to water the plants', every_seconds: 3600 })).id;
  ids.report = (await service.create(creator(fixture.dm, '4242'), { prompt: 'Weekly report', cron: '0 9 * * 1', timezone: 'Europe/Berlin' })).id;
  ids.hostile = (await service.create(creator(fixture.group, 'U0MALLORY', 'Mallory'), { prompt: HOSTILE, at: '2026-04-01T08:00:00Z' })).id;
  app = await fixture.app({ more: { schedules: service } });
  readOnlyApp = await fixture.app({ readOnly: true, more: { schedules: service } });
  listOnlyApp = await fixture.app();
});

afterAll(async () => {
  await queue.queue.obliterate({ force: true }).catch(() => undefined);
  await queue.queue.close();
  await redis.quit();
  await fixture?.close();
});

describe('the Schedules section', () => {
  it('lists each chat’s tasks under the chat’s name: schedule, prompt, creator, next run, last outcome, and a Cancel button', async () => {
    const { body, token } = await openPage(app, '/admin/schedules');
    expect(body).toContain('<h1>Scheduled tasks</h1>');
    expect(DOUBLE_ESCAPED_MARKUP.exec(body)?.[0]).toBeUndefined();
    // chats by key: the DM (telegram) after the Slack group
    const dmHeading = body.indexOf(`<a href="/admin/sessions/${encodeURIComponent(fixture.dm.key)}">Ada Lovelace (@ada)</a></h2>`);
    const groupHeading = body.indexOf(`<a href="/admin/sessions/${encodeURIComponent(fixture.group.key)}">Ops &#60;Room&#62; &#38; &#34;friends&#34;</a></h2>`);
    expect(dmHeading).toBeGreaterThan(0);
    expect(groupHeading).toBeGreaterThan(0);
    expect(groupHeading).toBeLessThan(dmHeading);
    expect(body).toContain('<caption>Tasks of Ada Lovelace (@ada), oldest first</caption>');
    expect(body).toContain(`<th scope="row"><code>${ids.water}</code></th>\n<td>every 3600 s</td>\n<td><span class="text">Remind me to water the plants</span></td>`);
    expect(body).toContain('<td>cron &#34;0 9 * * 1&#34; (Europe/Berlin)</td>');
    // the creator by the name stored for the person now, not the one the task kept
    expect(body).toContain('<td>Ada Lovelace (@ada)<br><code>4242</code></td>');
    expect(body).not.toContain('Ada (old name)');
    expect(body).toContain('<td>Mallory<br><code>U0MALLORY</code></td>');
    expect(body).toContain('<td><time datetime="2026-04-01T08:00:00.000Z">2026-04-01 08:00:00 UTC</time></td>');
    expect(body).toContain('<td>not yet</td>');
    expect(body).not.toContain(HOSTILE);
    expect(body).toContain('&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62;');
    expect(body).toContain(`<input type="hidden" name="id" value="${ids.water}"><button type="submit">Cancel<span class="visually-hidden"> task ${ids.water} of Ada Lovelace (@ada)</span></button>`);
    expect(token).toBeTruthy();
  });

  it('serves the same as JSON, a page of chats at a time', async () => {
    const first = await app.inject({ method: 'GET', url: '/admin/api/schedules?limit=1', headers: auth });
    expect(first.statusCode).toBe(200);
    const page = first.json();
    expect(page.chats).toHaveLength(1);
    expect(page.chats[0]).toMatchObject({ chatKey: fixture.group.key, sessionKey: fixture.group.key, channel: 'slack', chatId: 'C0OPS', chatType: 'group', title: 'Ops <Room> & "friends"' });
    expect(page.chats[0].tasks).toEqual([
      {
        id: ids.hostile,
        status: 'active',
        kind: 'at',
        schedule: '2026-04-01T08:00:00.000Z',
        timezone: expect.any(String),
        prompt: HOSTILE,
        sessionKey: fixture.group.key,
        creatorId: 'U0MALLORY',
        creatorName: 'Mallory',
        nextRunAt: '2026-04-01T08:00:00.000Z',
        lastRunAt: null,
        lastOutcome: null,
        lastError: null,
        createdAt: expect.any(String),
      },
    ]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const second = (await app.inject({ method: 'GET', url: `/admin/api/schedules?limit=1&cursor=${page.nextCursor}`, headers: auth })).json();
    expect(second.chats.map((chat: { chatKey: string }) => chat.chatKey)).toEqual([fixture.dm.key]);
    expect(second.chats[0]).toMatchObject({ userName: 'Ada Lovelace', username: 'ada' });
    expect(second.chats[0].tasks.map((task: { id: string }) => task.id)).toEqual([ids.water, ids.report]);
    expect(second.nextCursor).toBeNull();
    const html = (await app.inject({ method: 'GET', url: '/admin/schedules?limit=1', headers: auth })).body;
    expect(html).toMatch(/<a rel="next" href="\/admin\/schedules\?cursor&#61;[A-Za-z0-9_-]+&#38;limit&#61;1">More chats<\/a>/);
  });

  it('cancels a task with the form: gone from the list, from PostgreSQL and from Redis, as /tasks cancel does', async () => {
    expect(await queue.isArmed({ id: ids.water!, kind: 'every' })).toBe(true);
    const form = await openPage(app, '/admin/schedules');
    const response = await postForm(app, '/admin/schedules/cancel', { id: ids.water! }, form, { origin: 'http://localhost', host: 'localhost:80' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/admin/schedules?cancelled=${ids.water}`);
    expect((await findConsoleTask(fixture.database.db, ids.water!))?.status).toBe('cancelled');
    expect(await queue.isArmed({ id: ids.water!, kind: 'every' })).toBe(false);
    const after = await openPage(app, response.headers.location as string);
    expect(after.body).toContain(`<p class="notice" role="status">Cancelled task ${ids.water} (“Remind me to water the plants”): it will not fire again.</p>`);
    expect(after.body).not.toContain(`<code>${ids.water}</code>`);
    expect(after.body).toContain(`<code>${ids.report}</code>`);

    const again = await postForm(app, '/admin/schedules/cancel', { id: ids.water! }, await openPage(app, '/admin/schedules'));
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain(`Task ${ids.water} has already ended (cancelled).`);
    const unknown = await postForm(app, '/admin/schedules/cancel', { id: 'nosuchid' }, await openPage(app, '/admin/schedules'));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('No scheduled task has the id nosuchid.');
    const missing = await postForm(app, '/admin/schedules/cancel', {}, await openPage(app, '/admin/schedules'));
    expect(missing.statusCode).toBe(400);
  });

  it('refuses a cancel without the token or from another site, and hides Cancel with ADMIN_READONLY', async () => {
    const form = await openPage(app, '/admin/schedules');
    for (const response of await Promise.all([
      postForm(app, '/admin/schedules/cancel', { id: ids.report! }, { cookie: form.cookie }),
      postForm(app, '/admin/schedules/cancel', { id: ids.report! }, form, { origin: 'https://evil.example' }),
      postForm(app, '/admin/schedules/cancel', { id: ids.report! }, form, { 'sec-fetch-site': 'cross-site' }),
      postForm(readOnlyApp, '/admin/schedules/cancel', { id: ids.report! }, form),
    ])) {
      expect(response.statusCode).toBe(403);
    }
    expect((await findConsoleTask(fixture.database.db, ids.report!))?.status).toBe('active');
    const readOnly = await openPage(readOnlyApp, '/admin/schedules');
    expect(readOnly.body).toContain(`<code>${ids.report}</code>`);
    expect(readOnly.body).not.toMatch(/<form[^>]*method="post"|_csrf|>Action</);
  });

  it('lists without Cancel where the process has no schedule service', async () => {
    const page = await openPage(listOnlyApp, '/admin/schedules');
    expect(page.body).toContain(`<code>${ids.report}</code>`);
    expect(page.body).not.toContain('>Cancel<');
    // a valid token (from a process that shows the form) still finds nothing to cancel with here
    const refused = await postForm(listOnlyApp, '/admin/schedules/cancel', { id: ids.report! }, await openPage(app, '/admin/schedules'));
    expect(refused.statusCode).toBe(404);
    expect(refused.body).toContain('scheduled tasks cannot be cancelled from this process');
    expect((await findConsoleTask(fixture.database.db, ids.report!))?.status).toBe('active');
  });
});
