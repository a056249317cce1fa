import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotError } from '../../src/core/errors.js';
import { withLogContext } from '../../src/observability/log-context.js';
import { createLogger } from '../../src/observability/logger.js';
import { flushTurn, migrateDatabase, openDatabase, type Database, type SessionRow } from '../../src/store/index.js';
import { flushWithRetry } from '../../src/turn/flush-with-retry.js';
import { turnRecord } from '../store/fixtures.js';
import { createTestDatabase } from '../support/services.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

describe('logger', () => {
  it('writes JSON lines and redacts tokens, secrets and Authorization headers', () => {
    const { lines, logger } = capture();
    logger.child({ module: 'test' }).info(
      {
        config: { token: '123:abc', apiKey: 'sk-live', webhookSecret: 'wh-value-1', signingSecret: 'sig-value', botToken: 'xoxb-1', password: 'pw-value' },
        headers: { authorization: 'Bearer sk-live', 'x-telegram-bot-api-secret-token': 'wh-value-2' },
        token: 'top-level-token',
      },
      'configured',
    );
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    const entry = JSON.parse(line);
    expect(entry).toMatchObject({ level: 30, module: 'test', msg: 'configured' });
    for (const secret of ['123:abc', 'sk-live', 'wh-value-1', 'wh-value-2', 'sig-value', 'xoxb-1', 'pw-value', 'top-level-token']) expect(line).not.toContain(secret);
    expect(entry.config.token).toBe('[redacted]');
    expect(entry.headers.authorization).toBe('[redacted]');
  });

  it('keeps debug lines (where message text goes) out at info level', () => {
    const { lines, logger } = capture();
    logger.debug({ text: 'what the user wrote' }, 'inbound message');
    expect(lines).toHaveLength(0);
  });

  it('stamps every line written during a turn with its runId and sessionKey, in any module', async () => {
    const { lines, logger } = capture();
    const channelLogger = logger.child({ module: 'telegram' });
    await withLogContext({ runId: 'run-1', sessionKey: 'agent:main:telegram:1:dm:2' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      channelLogger.warn('sendMessage failed');
    });
    channelLogger.info('outside any turn');
    const [inside, outside] = lines.map((line) => JSON.parse(line));
    expect(inside).toMatchObject({ module: 'telegram', runId: 'run-1', sessionKey: 'agent:main:telegram:1:dm:2' });
    expect(outside.runId).toBeUndefined();
  });
});

describe('logged errors (a real PostgreSQL)', () => {
  let database: Database;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  // what a user wrote: it must never reach the logs through an error's query parameters
  const conversation = `my bank password is hunter2-${randomUUID()}`;

  beforeAll(async () => {
    const testDatabase = await createTestDatabase();
    drop = testDatabase.drop;
    databaseUrl = testDatabase.url;
    // as the service opens it: with a statement hook, which makes postgres.js put query and parameters on its errors
    database = await openDatabase({ databaseUrl, dataDir: mkdtempSync(join(tmpdir(), 'logger-')), onQuery: () => {} });
    await migrateDatabase(database);
  });

  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('keep the message, code and stack of a failed turn flush, but not the turn: no query, parameters or args', async () => {
    const { lines, logger } = capture();
    // a session that does not exist: the run's foreign key fails, and the statement's parameters hold the whole turn
    const session = { id: randomUUID(), key: 'agent:main:telegram:bot:dm:1' } as SessionRow;
    const record = turnRecord(session);
    record.messages[0]!.parts = [{ type: 'text', text: conversation }];
    const store = { flushTurn: (turn: typeof record) => flushTurn(database.db, turn) };
    await expect(flushWithRetry(store as never, record, logger, { maxWaitMs: 150, firstDelayMs: 100, maxDelayMs: 100 })).rejects.toThrow();

    expect(lines.length).toBeGreaterThan(0);
    const line = lines[0]!;
    expect(line).not.toContain(conversation);
    expect(line).not.toContain('hunter2');
    expect(line.length).toBeLessThan(6_000);
    const { err, runId, msg } = JSON.parse(line);
    expect(msg).toMatch(/^flush failed/);
    expect(runId).toBe(record.runId);
    expect(err.message).toMatch(/violates foreign key constraint/);
    expect(err.stack).toMatch(/\n\s+at /);
    expect(JSON.stringify(err)).toContain('23503'); // the PostgreSQL error code, on the error or its cause
    for (const bulk of ['query', 'parameters', 'params', 'args']) {
      expect(err).not.toHaveProperty(bulk);
      expect(err.cause ?? {}).not.toHaveProperty(bulk);
    }
    // sizes instead of content
    expect(JSON.stringify(err)).toMatch(/"parameters":\{"count":\d+,"chars":\d+\}|"params":\{"count":\d+,"chars":\d+\}/);
  });

  it('drop the query and parameters of a postgres.js error thrown directly', async () => {
    const { lines, logger } = capture();
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, debug: () => {} });
    try {
      const error = await sql`select length(${conversation}::text) / 0 as n`.catch((failure: unknown) => failure);
      logger.warn({ err: error }, 'query failed');
    } finally {
      await sql.end();
    }
    const line = lines[0]!;
    expect(line).not.toContain('hunter2');
    const { err } = JSON.parse(line);
    expect(err).toMatchObject({ type: 'PostgresError', code: '22012', message: 'division by zero' });
    expect(err.stack).toMatch(/^PostgresError: division by zero\n\s+at /);
    expect(err).not.toHaveProperty('query');
    expect(err).not.toHaveProperty('parameters');
    expect(err).not.toHaveProperty('args');
    expect(err.omitted).toMatchObject({ query: { chars: expect.any(Number) }, parameters: { count: 1, chars: expect.any(Number) } });
  });

  it('keep small fields of our own errors and their causes', () => {
    const { lines, logger } = capture();
    logger.error({ err: new BotError('platform', 'sendMessage failed', { cause: new Error('socket hang up'), isRetryable: true, retryAfterMs: 1_000 }) }, 'send failed');
    const { err } = JSON.parse(lines[0]!);
    expect(err).toMatchObject({ type: 'BotError', code: 'platform', isRetryable: true, retryAfterMs: 1_000, message: 'sendMessage failed: socket hang up' });
    expect(err.stack).toContain('caused by: Error: socket hang up');
  });

  it('name an error of an anonymous class (`module.exports = class extends Error`) by its own name field', () => {
    const { lines, logger } = capture();
    const Anonymous = [class extends Error {}][0]!;
    expect(Anonymous.name).toBe('');
    const error = new Anonymous('the queue is full');
    error.name = 'QueueFullError';
    logger.warn({ err: error }, 'enqueue failed');
    expect(JSON.parse(lines[0]!).err).toMatchObject({ type: 'QueueFullError', message: 'the queue is full' });
  });

  it('measure circular request objects and keep aggregated errors (an HTTP client error, a multi-address connect failure)', () => {
    const { lines, logger } = capture();
    const request: Record<string, unknown> = { path: '/open-apis/im/v1/messages' };
    request.self = request;
    const httpError = Object.assign(new Error('Request failed with status code 500'), { code: 'ERR_BAD_RESPONSE', config: { data: 'what the user wrote' }, request, status: 500 });
    const connectError = new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], 'connect failed');
    logger.warn({ err: httpError }, 'send failed');
    logger.warn({ err: connectError }, 'connect failed');
    const [http, connect] = lines.map((line) => JSON.parse(line).err);
    expect(lines[0]).not.toContain('what the user wrote');
    expect(http).toMatchObject({ message: 'Request failed with status code 500', code: 'ERR_BAD_RESPONSE', status: 500, omitted: { config: { chars: expect.any(Number) }, request: {} } });
    expect(connect.aggregateErrors).toEqual([expect.objectContaining({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED ::1:5432' })]);
  });
});
