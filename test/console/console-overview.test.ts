import { Queue, Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { hostname } from 'node:os';
import { BudgetStore, KeySpace } from '../../src/redis/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLedger, BudgetSettings, BudgetsOverview } from '../../src/budgets/index.js';
import { createServiceStatus } from '../../src/gateway/service-status.js';
import { createLogger } from '../../src/observability/logger.js';
import { ApprovalRecords } from '../../src/approvals/index.js';
import { ChannelActivity, DeadLetters, LeaderLease, McpStatusBoard, SessionQueue, SessionQueueReader, TurnsPause } from '../../src/redis/index.js';
import { inboundMessage } from '../support/messages.js';
import { flushTurn, type SessionRow } from '../../src/store/index.js';
import { turnRecord } from '../store/fixtures.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';
import { auth, createConsoleFixture, NOW, type ConsoleFixture } from './support/console-fixture.js';
import { DOUBLE_ESCAPED_MARKUP, openPage } from './support/console-forms.js';

const logger = createLogger({ level: 'silent' });
const redis = new Redis(TEST_REDIS_URL);
const prefix = uniqueName('console-overview');
const keys = new KeySpace(prefix, 1, false);
const sessions = new SessionQueue(redis, keys, { groupMaxConcurrent: 3, leaseMs: 30_000, debounceMs: 0, albumWaitMs: 0, modeOf: () => 'collect' });
const inbound = new Queue('inbound', { connection: redis, prefix });
const reader = new SessionQueueReader(redis, keys);
const deadLetters = new DeadLetters(redis, keys);
const pause = new TurnsPause(redis, keys);
const activity = new ChannelActivity(redis, keys, logger, () => NOW - 90_000);
const channels = [
  { name: 'telegram' as const, accountId: '111', inboundConnection: true },
  { name: 'feishu' as const, accountId: 'cli_2', inboundConnection: true },
  { name: 'slack' as const, accountId: 'T1' },
];
/** Nothing listens on port 1 and nothing is queued or retried: every command fails at once, as with Redis away. */
const away = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });

let fixture: ConsoleFixture;
let app: FastifyInstance;

async function run(session: SessionRow, minutesAgo: number, status: 'completed' | 'failed' | 'budget_exceeded', costUsd: number, error?: string) {
  const record = turnRecord(session);
  const startedAt = new Date(NOW - minutesAgo * 60_000);
  await flushTurn(fixture.database.db, { ...record, run: { ...record.run, status, costUsd, startedAt, finishedAt: new Date(startedAt.getTime() + 1000), ...(error ? { error } : {}) } });
}

beforeAll(async () => {
  fixture = await createConsoleFixture();
  await run(fixture.dm, 10, 'completed', 0.5);
  await run(fixture.group, 5, 'failed', 0.25, 'provider exploded <b>loudly</b>');
  await run(fixture.dm, 120, 'budget_exceeded', 0);

  const ledger = new BudgetLedger(new BudgetStore(redis, keys));
  const reserved = await ledger.reserve({ user: 'telegram:4242', chat: 'telegram:bot:4242', agent: 'main' }, {}, 1, NOW);
  if (reserved.kind !== 'reserved') throw new Error('not reserved');
  await ledger.settle(reserved.reservation, 1.25, NOW);
  const budgets = new BudgetsOverview({
    ledger,
    settings: new BudgetSettings(new BudgetStore(redis, keys)),
    defaults: { chatDailyUsd: 3 },
    agents: [
      { id: 'main', budgets: { agentDailyUsd: 10 } },
      { id: 'quiet', budgets: {} },
    ],
    clock: () => NOW,
  });

  // one failed compaction job; one turn waiting for a worker
  const failing = new Worker('inbound', async () => Promise.reject(new Error('boom')), { connection: new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null }), prefix });
  await inbound.add('compact', { sessionKey: 'agent:main:telegram:111:dm:2' }, { attempts: 1 });
  for (let waited = 0; (await inbound.getFailedCount()) === 0 && waited < 100; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  await failing.close();
  const waiting = inboundMessage();
  await sessions.enqueue('agent:main:telegram:111:dm:1', waiting);
  // one turn waiting out a retry's backoff; one abandoned after every retry (a dead letter); turns paused
  const retryingKey = 'agent:main:telegram:111:dm:3';
  await sessions.enqueue(retryingKey, inboundMessage());
  const retrying = await sessions.acquire(retryingKey, 'w1');
  if (retrying.kind !== 'acquired') throw new Error('not acquired');
  await sessions.requeue(retryingKey, retrying.turnId, retrying.holder, { delayMs: 600_000, attempt: 2, round: 0 });
  const deadKey = 'agent:main:telegram:111:dm:4';
  await sessions.enqueue(deadKey, inboundMessage());
  const dead = await sessions.acquire(deadKey, 'w1');
  if (dead.kind !== 'acquired') throw new Error('not acquired');
  expect(await sessions.deadLetter(deadKey, dead.turnId, dead.holder, 'model down')).toBe('dead');
  await sessions.release(deadKey, dead.turnId, dead.holder);
  await pause.pause();

  // the telegram account's polling lease is held; the slack account received an update 90 s ago
  await LeaderLease.named(redis, keys, 'connection:telegram:111', 30_000).acquire();
  activity.received('slack', 'T1');
  await activity.flush();

  const approvals = new ApprovalRecords(redis, keys);
  await approvals.open(
    { id: 'waiting-1', sessionKey: fixture.dm.key, turnId: 't', toolCallId: 'c', toolName: 'bash', argumentsPreview: 'ls', requesterId: '4242', conversation: '{}', deadlineMs: NOW + 60_000 },
    NOW,
  );
  const status = createServiceStatus({ redis, keys, sessions, reader, deadLetters, pause, queues: [inbound], channels, activity });
  app = await fixture.app({
    budgets,
    more: { status, approvals: { pending: (limit) => approvals.pending(limit), pendingCount: () => approvals.pendingCount(), deny: () => Promise.resolve({ kind: 'missing' }) } },
  });
});

afterAll(async () => {
  await inbound.obliterate({ force: true }).catch(() => undefined);
  await inbound.close();
  const keys = [...(await redis.keys(`{${prefix}:*`)), ...(await redis.keys(`${prefix}:*`))];
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  away.disconnect();
  await fixture?.close();
});

describe('the console’s home page', () => {
  it('shows today’s spend against budgets, the last hour’s turns and failures, the queues, the connections and parked turns', async () => {
    const { body } = await openPage(app, '/admin');
    expect(body).toContain('<h1>Operator console</h1>');
    expect(DOUBLE_ESCAPED_MARKUP.exec(body)?.[0]).toBeUndefined();
    expect(body).toContain('<h2 id="today">Today (2026-03-10)</h2>');
    expect(body).toContain('<p class="figure"><span class="value">$0.75</span> settled over 3 turns</p><p>1 completed, <span class="badge failed">1 failed</span>, 0 stopped, 1 refused by a budget.</p>');
    expect(body).toContain('<tr><th scope="row"><code>main</code></th><td class="number">$1.25</td><td class="number">$10.00</td><td class="number"><span class="badge">13 %</span></td></tr>');
    expect(body).toContain('<tr><th scope="row"><code>quiet</code></th><td class="number">$0</td><td class="number">no limit</td>');
    expect(body).toContain('Default limits per user: none, per chat: $3.00.');

    expect(body).toContain('<h2 id="last-hour">Last hour</h2><p class="figure"><span class="value">2</span> turns</p><p>1 completed, <span class="badge failed">1 failed</span>, 0 stopped, 0 refused by a budget.</p>');
    expect(body).toContain(
      `<li><a href="/admin/sessions/${encodeURIComponent(fixture.group.key)}">Ops &#60;Room&#62; &#38; &#34;friends&#34;</a> (slack), 5 min 0 s ago: <span class="mono">provider exploded &#60;b&#62;loudly&#60;/b&#62;</span></li>`,
    );

    // the turns from the session queue itself: one message waiting, one turn retrying after a backoff, one failed
    // after every retry (a dead letter), and the operator's pause
    expect(body).toContain(
      '<tr><th scope="row"><a href="/admin/queues/queue/turns">Turns (session queue)</a> <span class="badge failed">paused</span></th><td class="number">0</td><td class="number">1</td><td class="number">1</td><td class="number"><span class="badge failed">1</span></td><td class="number"><span class="badge failed">1</span></td></tr>',
    );
    expect(body).toContain(
      '<tr><th scope="row"><a href="/admin/queues/queue/inbound">Compactions (inbound queue)</a></th><td class="number">0</td><td class="number">0</td><td class="number">0</td><td class="number">–</td><td class="number"><span class="badge failed">1</span></td></tr>',
    );
    expect(body).toContain('<a href="/admin/queues/queue/turns">Turns: waiting, running, retrying and failed (retry or discard)</a>');
    expect(body).toContain('<p>1 turn parked on an approval request. <a href="/admin/approvals">Approvals</a></p>');

    expect(body).toContain(`<tr><th scope="row">telegram <code>111</code></th><td>long polling</td><td><code>${hostname()}/${process.pid}</code><br>lease renews within`);
    expect(body).toContain('<tr><th scope="row">feishu <code>cli_2</code></th><td>long connection</td><td><span class="badge failed">nobody</span>');
    expect(body).toContain('<tr><th scope="row">slack <code>T1</code></th><td>webhook</td><td>every gateway (webhook)</td><td><time datetime="2026-03-10T11:58:30.000Z">2026-03-10 11:58:30 UTC</time><br>1 min 30 s ago</td></tr>');
    // the sections are still listed
    expect(body).toContain('<h3><a href="/admin/schedules">Schedules</a></h3>');
  });

  it('serves the same figures as JSON', async () => {
    const response = await app.inject({ method: 'GET', url: '/admin/api/overview', headers: auth });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      now: '2026-03-10T12:00:00.000Z',
      day: '2026-03-10',
      today: { turns: 3, completed: 1, failed: 1, cancelled: 0, budgetExceeded: 1, costUsd: 0.75 },
      lastHour: { turns: 2, completed: 1, failed: 1, costUsd: 0.75 },
      failures: [{ sessionKey: fixture.group.key, error: 'provider exploded <b>loudly</b>', startedAt: '2026-03-10T11:55:00.000Z' }],
      budgets: { defaults: { chatDailyUsd: 3 }, agents: [{ id: 'main', spentUsd: 1.25, limitUsd: 10 }, { id: 'quiet', spentUsd: 0 }] },
      queues: [
        { queue: 'turns', running: 0, waiting: 1, delayed: 1, retrying: 1, failed: 1, paused: true },
        { queue: 'inbound', running: 0, waiting: 0, delayed: 0, failed: 1, paused: false },
      ],
      pendingApprovals: 1,
      unavailable: {},
    });
    // no agent declares an MCP server: no MCP part at all
    expect(body.mcpServers).toBeNull();
    expect(body.connections).toEqual([
      { channel: 'telegram', accountId: '111', transport: 'long polling', holder: `${hostname()}/${process.pid}`, leaseExpiresInMs: expect.any(Number), lastUpdateAt: null },
      { channel: 'feishu', accountId: 'cli_2', transport: 'long connection', holder: null, leaseExpiresInMs: null, lastUpdateAt: null },
      { channel: 'slack', accountId: 'T1', transport: 'webhook', holder: null, leaseExpiresInMs: null, lastUpdateAt: '2026-03-10T11:58:30.000Z' },
    ]);
  });

  it('shows each beating worker’s MCP servers (connecting, connected, down); old reports of workers gone are dropped', async () => {
    const board = new McpStatusBoard(redis, keys, logger, () => NOW);
    await board.publish('worker-a', [
      { server: 'search', state: 'connected' },
      { server: 'files', state: 'down', error: 'could not connect: spawn <npx> ENOENT' },
      { server: 'crm', state: 'connecting' },
    ]);
    // a worker that died two minutes ago without removing its report
    await new McpStatusBoard(redis, keys, logger, () => NOW - 120_000).publish('worker-dead', [{ server: 'search', state: 'connected' }]);
    const status = createServiceStatus({ redis, keys, sessions, reader, deadLetters, pause, queues: [], channels, activity, mcp: { read: () => board.read(['worker-a']) } });
    const withMcp = await fixture.app({ more: { status } });
    const { body } = await openPage(withMcp, '/admin');
    expect(body).toContain('<h2 id="mcp">MCP servers</h2>');
    expect(body).toContain('<tr><th scope="row"><code>files</code></th><td><code>worker-a</code></td><td><span class="badge failed">down</span></td><td class="mono">could not connect: spawn &#60;npx&#62; ENOENT</td></tr>');
    expect(body).toContain('<tr><th scope="row"><code>crm</code></th><td><code>worker-a</code></td><td><span class="badge">connecting</span></td>');
    const json = (await withMcp.inject({ method: 'GET', url: '/admin/api/overview', headers: auth })).json();
    expect(json.mcpServers).toEqual([
      { worker: 'worker-a', server: 'search', state: 'connected', error: null },
      { worker: 'worker-a', server: 'files', state: 'down', error: 'could not connect: spawn <npx> ENOENT' },
      { worker: 'worker-a', server: 'crm', state: 'connecting', error: null },
    ]);
    expect(await redis.hkeys(keys.mcpStatus)).toEqual(['worker-a']);
    await board.remove('worker-a');
    expect(await redis.exists(keys.mcpStatus)).toBe(0);
  });

  it('still answers when Redis is away, saying which parts could not be read', async () => {
    const status = createServiceStatus({
      redis: away,
      keys,
      sessions: new SessionQueue(away, keys, sessions.options),
      reader: new SessionQueueReader(away, keys),
      deadLetters: new DeadLetters(away, keys),
      pause: new TurnsPause(away, keys),
      queues: [],
      channels,
      activity: new ChannelActivity(away, keys, logger),
    });
    const degraded = await fixture.app({ more: { status } });
    const { body } = await openPage(degraded, '/admin');
    expect(body).toContain('<p class="notice problem" role="alert">Channel connections: could not be read just now (the log says why).</p>');
    expect(body).toContain('<p class="notice">Budgets: not available in this process.</p>');
    expect(body).toContain('<span class="value">2</span> turns');
    const json = (await degraded.inject({ method: 'GET', url: '/admin/api/overview', headers: auth })).json();
    // the turns' queue lives in Redis too: it is said to be unreadable, not shown as empty
    expect(json.unavailable).toEqual({ budgets: 'absent', queues: 'failed', 'channel connections': 'failed', 'approval requests': 'absent' });
    expect(json.queues).toBeNull();
  });
});
