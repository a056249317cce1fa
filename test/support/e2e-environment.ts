import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { startAnthropicDouble, type AnthropicDouble } from '../doubles/anthropic-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double.js';
import { startTelegramDouble, type TelegramDouble } from '../doubles/telegram-double.js';
import { createTestDatabase, TEST_REDIS_URL, uniqueName } from './services.js';

export const WEBHOOK_SECRET = 'e2e-webhook-secret';

export interface E2eEnvironment {
  telegram: TelegramDouble;
  openai: OpenAiDouble;
  anthropic: AnthropicDouble;
  databaseUrl: string;
  sql: postgres.Sql;
  redis: Redis;
  prefix: string;
  dataDir: string;
  /** Environment for the service process; `overrides` win. */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** Jobs of the inbound queue in any state. */
  jobCount(): Promise<number>;
  /** Stored messages of all sessions, in session/seq order. */
  storedMessages(): Promise<Array<{ session_key: string; seq: number; role: string; parts: any; inbound_key: string | null }>>;
  close(): Promise<void>;
}

/** Doubles of Telegram and both LLM APIs, a fresh database, a unique queue prefix on the real Redis. */
export async function createE2eEnvironment(): Promise<E2eEnvironment> {
  const [telegram, openai, anthropic, database] = await Promise.all([
    startTelegramDouble(),
    startOpenAiDouble(),
    startAnthropicDouble(),
    createTestDatabase(),
  ]);
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  const redis = new Redis(TEST_REDIS_URL);
  const prefix = uniqueName('e2e');
  const dataDir = mkdtempSync(join(tmpdir(), 'bot-e2e-'));
  const queue = new Queue('inbound', { connection: redis, prefix });

  return {
    telegram,
    openai,
    anthropic,
    databaseUrl: database.url,
    sql,
    redis,
    prefix,
    dataDir,
    env: (overrides = {}) => ({
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TELEGRAM_MODE: 'webhook',
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: openai.baseUrl,
      ANTHROPIC_BASE_URL: anthropic.baseUrl,
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      DATA_DIR: dataDir,
      ...overrides,
    }),
    jobCount: async () => {
      const counts = await queue.getJobCounts();
      return Object.values(counts).reduce((sum, count) => sum + count, 0);
    },
    storedMessages: async () =>
      sql`SELECT s.key AS session_key, m.seq::int AS seq, m.role, m.parts, m.inbound_key
          FROM messages m JOIN sessions s ON s.id = m.session_id ORDER BY s.key, m.seq`,
    close: async () => {
      await queue.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
      await sql.end();
      await Promise.all([telegram.close(), openai.close(), anthropic.close()]);
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs an update to the service's Telegram webhook. */
export async function postTelegramUpdate(baseUrl: string, update: unknown, secret = WEBHOOK_SECRET): Promise<Response> {
  return fetch(`${baseUrl}/webhooks/telegram`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
    body: typeof update === 'string' ? update : JSON.stringify(update),
  });
}
