import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denyAsOperator } from '../../src/approvals/index.js';
import { ChannelRegistry } from '../../src/core/channel-registry.js';
import type { ConversationRef, InboundMessage } from '../../src/core/inbound-message.js';
import type { ConsoleApprovals } from '../../src/gateway/console/console-section.js';
import { createLogger } from '../../src/observability/logger.js';
import { ApprovalRecords } from '../../src/approvals/index.js';
import { KeySpace, SessionQueue } from '../../src/redis/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';
import { auth, createConsoleFixture, HOSTILE, NOW, type ConsoleFixture } from './support/console-fixture.js';
import { DOUBLE_ESCAPED_MARKUP, openPage, postForm } from './support/console-forms.js';

const logger = createLogger({ level: 'silent' });
const redis = new Redis(TEST_REDIS_URL);
const prefix = uniqueName('console-approvals');
/** A small bound, to see the index kept to it. */
const keys = new KeySpace(prefix, 1, false);
const records = new ApprovalRecords(redis, keys, 4);
const sessions = new SessionQueue(redis, keys, { groupMaxConcurrent: 3, leaseMs: 30_000, debounceMs: 0, albumWaitMs: 0, modeOf: () => 'collect' });
const WORKER = 'worker-1';
const approvals: ConsoleApprovals = {
  pending: (limit) => records.pending(limit),
  pendingCount: () => records.pendingCount(),
  deny: (id, operator) => denyAsOperator({ records, sessions, channels: new ChannelRegistry(), logger, clock: () => NOW }, id, operator),
};

let fixture: ConsoleFixture;
let app: FastifyInstance;
let readOnlyApp: FastifyInstance;
let parked: { turnId: string; holder: string };

const dmConversation: ConversationRef = { channel: 'telegram', accountId: 'bot', chatId: '4242', chatType: 'dm', messageId: '7' };
const groupConversation: ConversationRef = { channel: 'slack', accountId: 'T1', chatId: 'C0OPS', chatType: 'group', messageId: '8' };

function request(id: string, fields: { sessionKey: string; turnId: string; conversation: ConversationRef; requesterId: string; toolName: string; argumentsPreview: string; createdAtMs: number; deadlineMs: number }) {
  const { createdAtMs, conversation, ...rest } = fields;
  return records.open({ id, toolCallId: `call-${id}`, conversation: JSON.stringify(conversation), ...rest }, createdAtMs);
}

beforeAll(async () => {
  fixture = await createConsoleFixture();
  // a DM turn waiting for an approval, parked in the scheduler as a worker leaves it
  const message: InboundMessage = { conversation: dmConversation, dedupeKey: `telegram:bot:4242:${prefix}`, sender: { id: '4242' }, text: 'please note buy milk', sentAt: NOW, addressed: true, agentId: 'main' };
  await redis.hset(keys.session(fixture.dm.key).alive, WORKER, String(Date.now() + 600_000));
  await sessions.enqueue(fixture.dm.key, message);
  const acquired = await sessions.acquire(fixture.dm.key, WORKER);
  if (acquired.kind !== 'acquired') throw new Error(`not acquired: ${acquired.kind}`);
  parked = { turnId: acquired.turnId, holder: acquired.holder };
  expect(await sessions.park(fixture.dm.key, parked.turnId, parked.holder, Date.now() + 600_000)).toBe('parked');
  await request('dm-write', {
    sessionKey: fixture.dm.key,
    turnId: parked.turnId,
    conversation: dmConversation,
    requesterId: '4242',
    toolName: 'write_file',
    argumentsPreview: '{"path":"notes.txt","content":"buy milk"}',
    createdAtMs: NOW - 200_000,
    deadlineMs: NOW + 400_000,
  });
  await request('group-bash', {
    sessionKey: fixture.group.key,
    turnId: 'turn-group',
    conversation: groupConversation,
    requesterId: 'U0MALLORY',
    toolName: 'bash',
    argumentsPreview: HOSTILE,
    createdAtMs: NOW - 60_000,
    deadlineMs: NOW - 1_000,
  });
  app = await fixture.app({ more: { approvals } });
  readOnlyApp = await fixture.app({ readOnly: true, more: { approvals } });
});

afterAll(async () => {
  const stored = [...(await redis.keys(`{${prefix}:*`)), ...(await redis.keys(`${prefix}:*`))];
  if (stored.length) await redis.del(...stored);
  await redis.quit();
  await fixture?.close();
});

describe('the Approvals section', () => {
  it('lists pending requests oldest first: the tool and its arguments, who asked, the chat, how long, and Deny', async () => {
    const { body, token } = await openPage(app, '/admin/approvals');
    expect(body).toContain('<h1>Approval requests</h1>');
    expect(DOUBLE_ESCAPED_MARKUP.exec(body)?.[0]).toBeUndefined();
    expect(body).toContain('<p role="status">2 requests waiting.</p>');
    const dmRow = body.indexOf('<th scope="row"><code>write_file</code></th>');
    const groupRow = body.indexOf('<th scope="row"><code>bash</code></th>');
    expect(dmRow).toBeGreaterThan(0);
    expect(groupRow).toBeGreaterThan(dmRow);
    expect(body).toContain('<td><code>{&#34;path&#34;:&#34;notes.txt&#34;,&#34;content&#34;:&#34;buy milk&#34;}</code></td>');
    expect(body).toContain('<td>Ada Lovelace (@ada)<br><code>4242</code></td>');
    expect(body).toContain(`<td><a href="/admin/sessions/${encodeURIComponent(fixture.dm.key)}">Ada Lovelace (@ada)</a></td>`);
    expect(body).toContain(`<td><a href="/admin/sessions/${encodeURIComponent(fixture.group.key)}">Ops &#60;Room&#62; &#38; &#34;friends&#34;</a></td>`);
    expect(body).toContain('<td>3 min 20 s<br><time datetime="2026-03-10T11:56:40.000Z">');
    expect(body).toContain('<span class="badge failed">expired</span> denied when the turn resumes');
    expect(body).not.toContain(HOSTILE);
    expect(body).toContain('<button type="submit">Deny<span class="visually-hidden"> write_file for Ada Lovelace (@ada)</span></button>');
    expect(token).toBeTruthy();

    const json = (await app.inject({ method: 'GET', url: '/admin/api/approvals', headers: auth })).json();
    expect(json.total).toBe(2);
    expect(json.approvals[0]).toEqual({
      id: 'dm-write',
      sessionKey: fixture.dm.key,
      channel: 'telegram',
      accountId: 'bot',
      chatId: '4242',
      chat: 'Ada Lovelace (@ada)',
      requesterId: '4242',
      requesterName: 'Ada Lovelace (@ada)',
      toolName: 'write_file',
      arguments: '{"path":"notes.txt","content":"buy milk"}',
      createdAt: '2026-03-10T11:56:40.000Z',
      ageMs: 200_000,
      deadline: '2026-03-10T12:06:40.000Z',
    });
    expect(json.approvals[1]).toMatchObject({ id: 'group-bash', requesterId: 'U0MALLORY', arguments: HOSTILE });
    expect(json.approvals[1].requesterName).toBeUndefined();
  });

  it('denies one as the requester’s Deny would: the request is settled and the parked turn goes back to a worker', async () => {
    const form = await openPage(app, '/admin/approvals');
    const response = await postForm(app, '/admin/approvals/deny', { id: 'dm-write' }, form, { origin: 'http://localhost', host: 'localhost:80' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/admin/approvals?denied=dm-write');
    expect(await records.get('dm-write')).toMatchObject({ status: 'denied', decidedBy: 'operator:ops', decidedAtMs: NOW });

    // the turn is handed back: its session is due now, and the next acquire resumes the same turn
    const due = await sessions.popDue(keys.shardOf(fixture.dm.key), 10, 'console-test-worker');
    expect(due.sessionKeys).toContain(fixture.dm.key);
    const resumed = await sessions.acquire(fixture.dm.key, WORKER);
    expect(resumed).toMatchObject({ kind: 'acquired', turnId: parked.turnId, resumed: true });

    const after = await openPage(app, response.headers.location as string);
    expect(after.body).toContain('<p class="notice" role="status">Denied request dm-write: Denied by an operator. The turn goes on without the call.</p>');
    expect(after.body).toContain('<p role="status">1 request waiting.</p>');
    expect(after.body).not.toContain('<code>write_file</code>');

    const again = await postForm(app, '/admin/approvals/deny', { id: 'dm-write' }, await openPage(app, '/admin/approvals'));
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('This request was already answered (denied).');
    const unknown = await postForm(app, '/admin/approvals/deny', { id: 'no-such-request' }, await openPage(app, '/admin/approvals'));
    expect(unknown.statusCode).toBe(404);
  });

  it('refuses a deny without the token or from another site, and shows no Deny with ADMIN_READONLY', async () => {
    const form = await openPage(app, '/admin/approvals');
    for (const response of await Promise.all([
      postForm(app, '/admin/approvals/deny', { id: 'group-bash' }, { cookie: form.cookie }),
      postForm(app, '/admin/approvals/deny', { id: 'group-bash' }, form, { origin: 'https://evil.example' }),
      postForm(readOnlyApp, '/admin/approvals/deny', { id: 'group-bash' }, form),
    ])) {
      expect(response.statusCode).toBe(403);
    }
    expect((await records.get('group-bash'))?.status).toBe('pending');
    const readOnly = await openPage(readOnlyApp, '/admin/approvals');
    expect(readOnly.body).toContain('<code>bash</code>');
    expect(readOnly.body).not.toMatch(/<form[^>]*method="post"|_csrf|>Deny</);
  });

  it('keeps the pending index small: settled requests leave it, and it holds the newest few at most', async () => {
    await records.decide('group-bash', 'timed-out', 'timeout', 'No answer in time: denied.', NOW);
    expect(await records.pendingCount()).toBe(0);
    for (let index = 0; index < 6; index += 1) {
      await request(`extra-${index}`, { sessionKey: fixture.group.key, turnId: `turn-${index}`, conversation: groupConversation, requesterId: 'U1', toolName: 'bash', argumentsPreview: 'ls', createdAtMs: NOW + index, deadlineMs: NOW + 600_000 });
    }
    expect(await records.pendingCount()).toBe(4);
    // a request whose record is gone (expired) is dropped from the index when listed
    await redis.del(keys.approval('extra-3'));
    const listed = await records.pending(10);
    expect(listed.records.map((record) => record.id)).toEqual(['extra-2', 'extra-4', 'extra-5']);
    expect(listed.total).toBe(3);
  });

  it('says approvals are not available where the process has none', async () => {
    const bare = await fixture.app();
    const response = await bare.inject({ method: 'GET', url: '/admin/api/approvals', headers: auth });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'approval requests are not available in this process' });
  });
});
