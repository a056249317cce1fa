import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { CLI, freePort, startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * CONTRACT §16: the service on PostgreSQL behind PgBouncer in transaction mode (DATABASE_POOLER=transaction),
 * migrations on the direct DATABASE_MIGRATION_URL. A gateway and a worker start at once on a fresh database.
 */
const journal = JSON.parse(readFileSync(new URL('../../drizzle/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };

let environment: E2eEnvironment;
let pooler: PgBouncer;
let pooledEnv: Record<string, string>;
let gateway: ServiceProcess;
let worker: ServiceProcess;

const ALLOWED = [8101, 8102, 8103];
const GROUP = -1008200;

beforeAll(async () => {
  [environment, pooler] = await Promise.all([createE2eEnvironment(), startPgBouncer()]);
  pooledEnv = environment.env({
    DATABASE_URL: pooler.urlFor(environment.databaseUrl),
    DATABASE_MIGRATION_URL: environment.databaseUrl,
    DATABASE_POOLER: 'transaction',
    DM_POLICY: 'pairing',
    ALLOW_FROM: ALLOWED.map((userId) => `telegram:${userId}`).join(','),
    // whole answers only, so every answer is one sendMessage
    LLM_STREAM: 'false',
  });
  [gateway, worker] = await Promise.all([
    startServiceProcess({ ...pooledEnv, ROLE: 'gateway', OPENAI_API_KEY: '' }),
    startServiceProcess({ ...pooledEnv, ROLE: 'worker' }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await pooler?.stop();
  await environment?.close();
});

afterEach(() => {
  environment.openai.settings.latencyMs = 0;
  environment.openai.script.clear();
  environment.openai.script.respondWith((_request, text) => `You said: ${text}`);
});

/** The CLI as the operator runs it, a separate process; resolves with its exit code and output. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

const post = (update: unknown) => postTelegramUpdate(gateway.url, update);
const updates = () => environment.telegram.makeUpdate;
const textsTo = (chatId: number) =>
  environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));
/** Model requests whose newest user message carries `marker`: the turns that answered it. */
const turnsAnswering = (marker: string) => environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages.filter((message: { role: string }) => message.role === 'user').at(-1)).includes(marker));

async function say(chatId: number, update: unknown): Promise<string> {
  const before = textsTo(chatId).length;
  await post(update);
  await waitFor(() => textsTo(chatId).length > before, { timeoutMs: 20_000, what: `an answer in ${chatId}` });
  return textsTo(chatId)[before]!;
}

describe('PostgreSQL behind PgBouncer in transaction mode', () => {
  it('two processes starting at once apply every migration once; both talk to PostgreSQL through the pooler', async () => {
    const [applied] = await environment.sql`SELECT count(*)::int AS n, count(DISTINCT hash)::int AS distinct_n FROM drizzle.__drizzle_migrations`;
    expect(applied).toEqual({ n: journal.entries.length, distinct_n: journal.entries.length });
    for (const service of [gateway, worker]) expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    const database = new URL(environment.databaseUrl).pathname.slice(1);
    expect(await pooler.clients(database)).toBeGreaterThanOrEqual(2);
  });

  it('answers several DM and group turns, each once, and stores each message once', async () => {
    environment.openai.settings.latencyMs = 300;
    for (const round of [1, 2]) {
      await Promise.all(ALLOWED.map((userId) => post(updates().privateText(userId, `dm ${userId} round ${round}`))));
      await waitFor(() => ALLOWED.every((userId) => textsTo(userId).length === round), { timeoutMs: 30_000, what: `round ${round} answered` });
    }
    await Promise.all(ALLOWED.map((userId) => post(updates().mention(GROUP, userId, `group question from ${userId}`))));
    await waitFor(() => textsTo(GROUP).length === 3, { timeoutMs: 30_000, what: 'three group answers' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    for (const userId of ALLOWED) {
      expect(textsTo(userId)).toEqual([`You said: dm ${userId} round 1`, `You said: dm ${userId} round 2`]);
      for (const round of [1, 2]) expect(turnsAnswering(`dm ${userId} round ${round}`)).toHaveLength(1);
    }
    expect(textsTo(GROUP)).toHaveLength(3);
    for (const userId of ALLOWED) expect(turnsAnswering(`group question from ${userId}`)).toHaveLength(1);

    const stored = await environment.storedMessages();
    const inbound = stored.filter((message) => message.inbound_key !== null);
    expect(inbound).toHaveLength(ALLOWED.length * 2 + 3);
    expect(new Set(inbound.map((message) => message.inbound_key)).size).toBe(inbound.length);
    for (const userId of ALLOWED) {
      expect(stored.filter((message) => message.session_key.endsWith(`:dm:${userId}`)).map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    }
    const group = stored.filter((message) => message.session_key.endsWith(`:group:${GROUP}`));
    expect(group.filter((message) => message.role === 'assistant')).toHaveLength(3);
    const runs = await environment.sql`SELECT status, count(*)::int AS n FROM runs GROUP BY status`;
    expect(runs).toEqual([{ status: 'completed', n: ALLOWED.length * 2 + 3 }]);
  });

  it('/status, /usage and /new answer from the stored session', async () => {
    const chatId = ALLOWED[0]!;
    expect(await say(chatId, updates().command(chatId, chatId, 'status'))).toMatch(/^Model: openai\/gpt-4o-mini\nTokens used: [\d,]+ in, [\d,]+ out .*\nContext: ~[\d,]+ of 128,000 tokens/);
    const usage = await say(chatId, updates().command(chatId, chatId, 'usage'));
    expect(usage).toMatch(/^Usage of your direct messages \(UTC\):\nToday: [\d,]+ tokens in, [\d,]+ out, \$[\d.]+ \(2 turns\)/);
    expect(await say(chatId, updates().command(chatId, chatId, 'new'))).toMatch(/fresh conversation/);
    expect(await say(chatId, updates().privateText(chatId, 'after the reset'))).toBe('You said: after the reset');
    const [request] = turnsAnswering('after the reset');
    expect(JSON.stringify(request!.body.messages)).not.toContain(`dm ${chatId} round 1`);
  });

  it('the model schedules a task (an advisory transaction lock through the pooler) and /tasks lists it', async () => {
    const chatId = ALLOWED[1]!;
    environment.openai.script.push(reply.toolCall('schedule_task', { prompt: 'water the plants', every_seconds: 3600 }), 'Scheduled.');
    expect(await say(chatId, updates().privateText(chatId, 'remind me every hour'))).toBe('Scheduled.');
    const tasks = await environment.sql`SELECT id, prompt FROM scheduled_tasks WHERE chat_key LIKE ${`%:${chatId}`}`;
    expect(tasks).toHaveLength(1);
    expect(String(environment.openai.modelCalls.at(-1)!.body.messages.at(-1).content)).toContain(`Scheduled task ${tasks[0]!.id}: every 3600 s`);
    const listed = await say(chatId, updates().command(chatId, chatId, 'tasks'));
    expect(listed).toContain(tasks[0]!.id);
    expect(listed).toContain('water the plants');
  });

  it('pairing: a stranger gets a code; `pairing approve` through the pooler lets them in', async () => {
    const stranger = 8901;
    const code = /pairing code is ([A-Z0-9]{8})/.exec(await say(stranger, updates().privateText(stranger, 'hello?')))?.[1];
    expect(code).toBeDefined();
    const approved = await cli(['pairing', 'approve', code!], pooledEnv);
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.output).toMatch(/^approved telegram:8901/);
    expect(await say(stranger, updates().privateText(stranger, 'am I in now?'))).toBe('You said: am I in now?');
  });

  it('doctor passes and says DATABASE_URL goes through a transaction pooler and migrations through the direct URL', async () => {
    const { code, output } = await cli(['doctor'], pooledEnv);
    expect(output).toMatch(
      /^ok {4}postgres: postgres reachable, 0 pending migration\(s\); through a transaction pooler \(no prepared statements, no session state\); migrations through DATABASE_MIGRATION_URL \(direct, same database\)$/m,
    );
    expect(output).not.toMatch(/^FAIL/m);
    expect(code).toBe(0);
  });

  it('refuses to start through the pooler without DATABASE_POOLER=transaction, or without a direct migration URL, naming the variable', async () => {
    const withoutSetting = await cli(['start'], { ...pooledEnv, DATABASE_POOLER: '', DATABASE_MIGRATION_URL: '', PORT: String(await freePort()) });
    expect(withoutSetting.code).toBe(1);
    expect(withoutSetting.output).toMatch(/^configuration error: DATABASE_POOLER: DATABASE_URL goes through a transaction pooler/m);
    const withoutDirectUrl = await cli(['start'], { ...pooledEnv, DATABASE_MIGRATION_URL: '', PORT: String(await freePort()) });
    expect(withoutDirectUrl.code).toBe(1);
    expect(withoutDirectUrl.output).toMatch(/^configuration error: DATABASE_MIGRATION_URL: required with DATABASE_POOLER=transaction/m);
    const doctor = await cli(['doctor'], { ...pooledEnv, DATABASE_POOLER: '', DATABASE_MIGRATION_URL: '' });
    expect(doctor.code).toBe(1);
    expect(doctor.output).toMatch(/^FAIL {2}postgres: DATABASE_POOLER: DATABASE_URL goes through a transaction pooler/m);
  });

  it('doctor fails when DATABASE_MIGRATION_URL names another database than DATABASE_URL', async () => {
    const elsewhere = new URL(environment.databaseUrl);
    elsewhere.pathname = '/postgres';
    const { code, output } = await cli(['doctor'], { ...pooledEnv, DATABASE_MIGRATION_URL: elsewhere.toString() });
    expect(code).toBe(1);
    expect(output).toMatch(/^FAIL {2}postgres: DATABASE_MIGRATION_URL: reaches database "postgres" on a server started .*, but DATABASE_URL reaches "bot_test_\w+" .*; both must name the same database — /m);
  });
});
