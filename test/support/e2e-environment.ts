import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import postgres from 'postgres';
import { startAnthropicDouble, type AnthropicDouble } from '../doubles/anthropic-double.js';
import { isFeishuDelivery, startFeishuDouble, type FeishuDouble, type FeishuDoubleOptions } from '../doubles/feishu-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double.js';
import { startSlackDouble, type SignedRequest, type SlackDouble, type SlackDoubleOptions } from '../doubles/slack-double.js';
import { startTelegramDouble, type TelegramDouble } from '../doubles/telegram-double.js';
import { createRedisClient, KeySpace, scanKeys, type RedisClient, type RedisTarget } from '../../src/redis/index.js';
import { waitFor } from './service-process.js';
import { createTestDatabase, deleteTestKeys, testRedisTarget, uniqueName } from './services.js';

export const WEBHOOK_SECRET = 'e2e-webhook-secret';

export interface E2eEnvironmentOptions {
  /** Also start a Slack Web API double (`true` or its options); see `slackEnv()`. */
  slack?: boolean | SlackDoubleOptions;
  /** Also start a Feishu Open API double (`true` or its options); see `feishuEnv()`. */
  feishu?: boolean | FeishuDoubleOptions;
  /** The Redis the service and the environment use (default `testRedisTarget()`): e.g. a cluster a test kills nodes of. */
  redis?: RedisTarget;
}

export interface E2eEnvironment {
  telegram: TelegramDouble;
  /** Only when asked for in the options. */
  slack: SlackDouble | undefined;
  /** Only when asked for in the options. */
  feishu: FeishuDouble | undefined;
  openai: OpenAiDouble;
  anthropic: AnthropicDouble;
  databaseUrl: string;
  sql: postgres.Sql;
  redis: RedisClient;
  prefix: string;
  /** The service's Redis keys under this environment's QUEUE_PREFIX. */
  keys: KeySpace;
  dataDir: string;
  /** Environment for the service process; `overrides` win (an empty value unsets: `TELEGRAM_BOT_TOKEN: ''` turns Telegram off). */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** SLACK_* for the Slack double (HTTP Events API); throws when the environment has no Slack double. */
  slackEnv(): Record<string, string>;
  /**
   * FEISHU_* for the Feishu double in webhook mode: the verification token, and the encrypt key unless
   * `encrypt: false`. With the key set, every event must be signed with it (`feishu.delivery(…)` signs,
   * plain or encrypted) and an unsigned one is refused, as Feishu's SDK does; without it the token is the proof.
   */
  feishuEnv(options?: { encrypt?: boolean }): Record<string, string>;
  /**
   * What the service has taken in: messages registered in the session queue (their seen keys: commands, chatter and
   * refusals included) and jobs of the inbound queue in any state. A refused webhook leaves it unchanged.
   */
  jobCount(): Promise<number>;
  /** Stored messages of all sessions, in session/seq order. */
  storedMessages(): Promise<Array<{ session_key: string; seq: number; role: string; parts: any; inbound_key: string | null }>>;
  /**
   * The stored user messages (parts, attachments; seq order) of the sessions whose key is LIKE the pattern, once
   * there is one: a turn is stored right after its answer is sent, so a test that saw the answer waits for the
   * flush rather than racing it.
   */
  storedUserMessages(sessionKeyPattern: string): Promise<Array<{ parts: any; attachments: any }>>;
  close(): Promise<void>;
}

/** Doubles of Telegram and both LLM APIs (and Slack / Feishu when asked for), a fresh database, a unique queue prefix on the real Redis. */
export async function createE2eEnvironment(options: E2eEnvironmentOptions = {}): Promise<E2eEnvironment> {
  const optionsOf = <T extends object>(value: boolean | T | undefined): T | undefined => (value === undefined || value === false ? undefined : value === true ? ({} as T) : value);
  const slackOptions = optionsOf(options.slack);
  const feishuOptions = optionsOf(options.feishu);
  const [telegram, openai, anthropic, database, slack, feishu] = await Promise.all([
    startTelegramDouble(),
    startOpenAiDouble(),
    startAnthropicDouble(),
    createTestDatabase(),
    slackOptions ? startSlackDouble(slackOptions) : Promise.resolve(undefined),
    feishuOptions ? startFeishuDouble(feishuOptions) : Promise.resolve(undefined),
  ]);
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  const target = options.redis ?? testRedisTarget();
  const redis = createRedisClient(target, 'worker');
  const prefix = uniqueName('e2e');
  const keys = new KeySpace(prefix, target.cluster ? 16 : 1, target.cluster);
  const dataDir = mkdtempSync(join(tmpdir(), 'bot-e2e-'));
  const queue = new Queue('inbound', { connection: redis, prefix: keys.bullmqPrefix });

  const telegramEnv = {
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    TELEGRAM_MODE: 'webhook',
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
  };
  const commonEnv = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: openai.baseUrl,
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    DATABASE_URL: database.url,
    REDIS_URL: target.url,
    ...(target.cluster ? { REDIS_CLUSTER: 'true' } : {}),
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
    // the working indicator at once, as the tests of each channel's indicator expect it (test/e2e/typing-delay.test.ts
    // covers the default delay)
    TYPING_DELAY_MS: '0',
  };

  return {
    telegram,
    slack,
    feishu,
    openai,
    anthropic,
    databaseUrl: database.url,
    sql,
    redis,
    prefix,
    keys,
    dataDir,
    env: (overrides = {}) => ({ ...telegramEnv, ...commonEnv, ...overrides }),
    slackEnv: () => {
      if (!slack) throw new Error('createE2eEnvironment({ slack: true }) starts the Slack double');
      return { SLACK_BOT_TOKEN: slack.botToken, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_API_URL: slack.apiUrl };
    },
    feishuEnv: ({ encrypt = true } = {}) => {
      if (!feishu) throw new Error('createE2eEnvironment({ feishu: true }) starts the Feishu double');
      return {
        FEISHU_APP_ID: feishu.appId,
        FEISHU_APP_SECRET: feishu.appSecret,
        FEISHU_VERIFICATION_TOKEN: feishu.verificationToken,
        FEISHU_DOMAIN: feishu.domain,
        FEISHU_MODE: 'webhook',
        ...(encrypt ? { FEISHU_ENCRYPT_KEY: feishu.encryptKey } : {}),
      };
    },
    jobCount: async () => {
      const counts = await queue.getJobCounts();
      const seen = await scanKeys(redis, `{${prefix}:*}:seen:*`);
      return Object.values(counts).reduce((sum, count) => sum + count, 0) + seen.length;
    },
    storedMessages: async () =>
      sql`SELECT s.key AS session_key, m.seq::int AS seq, m.role, m.parts, m.inbound_key
          FROM messages m JOIN sessions s ON s.id = m.session_id ORDER BY s.key, m.seq`,
    storedUserMessages: (sessionKeyPattern) =>
      waitFor(
        async () => {
          const rows = await sql<Array<{ parts: any; attachments: any }>>`SELECT m.parts, m.attachments
            FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.key LIKE ${sessionKeyPattern} AND m.role = 'user' ORDER BY m.seq`;
          return rows.length > 0 ? rows : undefined;
        },
        { what: `a stored user message of ${sessionKeyPattern}` },
      ),
    close: async () => {
      await queue.close();
      // every key carries the prefix inside its hash tag (`{<prefix>:…}`); BullMQ's too on a cluster
      await deleteTestKeys(redis, `{${prefix}:*`);
      await deleteTestKeys(redis, `${prefix}:*`);
      await redis.quit();
      await sql.end();
      await Promise.all([telegram.close(), openai.close(), anthropic.close(), slack?.close(), feishu?.close()]);
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

/** POSTs a request built by the Slack double's `signedRequest` (events or slash commands) to the service. */
export async function postSlack(baseUrl: string, request: SignedRequest, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}${request.path}`, { method: 'POST', headers: { ...request.headers, ...headers }, body: request.rawBody });
}

/**
 * POSTs to the service's Feishu event subscription route: a delivery the double built and signed
 * (`feishu.delivery(envelope)`), or, unsigned, an envelope object or a raw body with the given headers.
 */
export async function postFeishu(baseUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const delivery = isFeishuDelivery(body) ? body : { rawBody: typeof body === 'string' ? body : JSON.stringify(body), headers: {} };
  return fetch(`${baseUrl}/webhooks/feishu/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...delivery.headers, ...headers },
    body: delivery.rawBody,
  });
}
