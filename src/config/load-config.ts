import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { BotError } from '../core/errors.js';
import { MEDIA_DEFAULTS, type MediaConfig } from '../media/media-config.js';
import { DEFAULT_HTTP_LIMITS } from './http-limits.js';
import { parseTrustProxy } from './trust-proxy.js';
import { parsePriceOverrides } from '../llm/price-overrides.js';
import { telemetrySettingsOf } from '../observability/telemetry-settings.js';

/** COMPACTION_TIMEOUT_MS: tens of seconds, the most a turn waits on a summary before it trims instead. */
const DEFAULT_COMPACTION_TIMEOUT_MS = 30_000;
import type { AppConfig, PlatformName } from './app-config.js';
import { describeError, locateConfigFile, readConfigFile, type LoadedConfigFile } from './config-file.js';
import { databaseConfig } from './database-config.js';
import { EnvironmentSchema, type Environment } from './environment-schema.js';
import { checkAgentKeys, mergeAgents } from './merge-agents.js';
import { checkReferences, mergeAccounts, mergeBindings, mergeChannelSettings } from './merge-accounts.js';

/** Reads `.env` from the working directory (without overriding the real environment). */
export function readDotEnv(directory = process.cwd()): void {
  const file = resolve(directory, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
}

/** The valid variables; each invalid one is a problem (one per variable) and is left out, as if unset. */
function parseEnvironment(source: NodeJS.ProcessEnv, problems: string[]): Environment {
  const known = Object.keys(EnvironmentSchema.properties);
  const picked: Record<string, unknown> = {};
  for (const key of known) {
    const value = source[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const converted = Value.Convert(EnvironmentSchema, picked) as Record<string, unknown>;
  const reported = new Set<string>();
  for (const error of Value.Errors(EnvironmentSchema, converted)) {
    const variable = error.path.replace(/^\//, '');
    if (reported.has(variable)) continue;
    reported.add(variable);
    const shown = /KEY|TOKEN|SECRET|PASSWORD/.test(variable) ? '(hidden)' : JSON.stringify(picked[variable]);
    problems.push(`${variable}: ${describeError(error)} (got ${shown})`);
    delete converted[variable];
  }
  return converted as Environment;
}

const ENTRY = /^(telegram|slack|feishu):.+$/;

/**
 * Turns one worker process runs at once. A turn waiting on the model costs little (an open request and its state),
 * so the default is high: one process carries message rate × model latency (300 msg/s × 2 s = 600) by itself.
 */
export const DEFAULT_WORKER_CONCURRENCY = 1_000;

/** `ALLOW_FROM` / `GROUP_ALLOWLIST`: comma-separated `channel:id`. */
function entriesOf(variable: string, value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !ENTRY.test(entry));
  if (bad !== undefined) throw new BotError('config', `${variable}: entries are channel:id with channel telegram, slack or feishu (got ${JSON.stringify(bad)})`);
  return entries;
}

export interface LoadConfigOptions {
  /** Where `bot.config.yaml` and a relative CONFIG_FILE are looked for. */
  cwd?: string;
}

/**
 * The whole configuration: the environment (CONTRACT §2) and, when present, the config file.
 * Where both set the same thing the environment wins; the single-agent variables (LLM_*,
 * SYSTEM_PROMPT, MAX_ITERATIONS, TELEGRAM_* …) are the default agent's and default accounts'.
 * Every problem is reported, one line each naming the variable (or the file and field).
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): AppConfig {
  const { config, problems } = inspectConfig(source, options);
  if (problems.length > 0) throw new BotError('config', problems.join('\n'));
  return config;
}

export interface ConfigInspection {
  /** Built from the valid parts: an invalid variable counts as unset, a config file with an error as absent. */
  config: AppConfig;
  /** One line each; empty when the configuration is valid. */
  problems: string[];
}

/** Every configuration problem at once (for `doctor`), and the configuration the valid parts make. */
export function inspectConfig(source: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): ConfigInspection {
  const problems: string[] = [];
  const attempt = <T>(work: () => T, fallback: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof BotError) || error.code !== 'config') throw error;
      problems.push(...error.message.split('\n'));
      return fallback();
    }
  };
  const env = parseEnvironment(source, problems);
  if (env.REDIS_CLUSTER && !env.REDIS_URL) {
    problems.push('REDIS_CLUSTER: true needs REDIS_URL with the cluster\'s seed nodes (redis://host:7000,redis://host:7001,…); the embedded redis-server is a single server');
  }
  const location = attempt(() => locateConfigFile(env.CONFIG_FILE, options.cwd ?? process.cwd()), () => undefined);
  let file = location ? attempt<LoadedConfigFile | undefined>(() => readConfigFile(location, source), () => undefined) : undefined;
  const withoutFile = () => {
    file = undefined;
  };
  const agents = attempt(
    () => mergeAgents(env, file),
    () => (withoutFile(), mergeAgents(env, undefined)),
  );
  const defaultAgent = agents[0]!;
  if (file) attempt(() => checkReferences(file!, new Set(agents.map((agent) => agent.id))), withoutFile);
  const accounts = attempt(
    () => mergeAccounts(env, file, defaultAgent.id),
    () => (withoutFile(), mergeAccounts(env, undefined, defaultAgent.id)),
  );
  const access = file?.content.access;
  const config: AppConfig = {
    configFile: location?.path,
    port: env.PORT ?? 8080,
    host: env.HOST ?? '0.0.0.0',
    http: attempt(
      () => httpLimits(env),
      () => httpLimits({ ...env, HTTP_HEADERS_TIMEOUT_MS: undefined }),
    ),
    trustProxy: attempt(
      () => parseTrustProxy(env.TRUST_PROXY),
      () => false,
    ),
    role: env.ROLE ?? 'all',
    ...databaseConfig(env),
    redisUrl: env.REDIS_URL,
    redisCluster: env.REDIS_CLUSTER ?? false,
    queueShards: env.QUEUE_SHARDS ?? (env.REDIS_CLUSTER ? 16 : 1),
    sessionCacheBytes: (env.SESSION_CACHE_MB ?? 32) * 1024 * 1024,
    dataDir: resolve(env.DATA_DIR ?? './data'),
    queuePrefix: env.QUEUE_PREFIX ?? 'bot',
    workerConcurrency: env.WORKER_CONCURRENCY ?? DEFAULT_WORKER_CONCURRENCY,
    groupMaxConcurrent: env.GROUP_MAX_CONCURRENT ?? 3,
    queueMode: env.QUEUE_MODE ?? 'collect',
    inboundDebounceMs: env.INBOUND_DEBOUNCE_MS ?? 0,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS ?? 25_000,
    approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS ?? 600_000,
    mcpStartupWaitMs: env.MCP_STARTUP_WAIT_MS ?? 5_000,
    connectionLeaseMs: env.CONNECTION_LEASE_MS ?? 20_000,
    turnLeaseMs: env.TURN_LEASE_MS ?? 15_000,
    workerDeadAfterMs: env.WORKER_DEAD_AFTER_MS ?? 4_000,
    turnFailingNoticeMs: env.TURN_FAILING_NOTICE_MS ?? 30_000,
    turnRetry: {
      attempts: env.TURN_RETRY_ATTEMPTS ?? 12,
      firstDelayMs: env.TURN_RETRY_FIRST_DELAY_MS ?? 2_000,
      lateRounds: env.TURN_RETRY_ROUNDS ?? 3,
      lateRoundDelayMs: env.TURN_RETRY_ROUND_DELAY_MS ?? 300_000,
    },
    llm: defaultAgent.llm,
    failoverCooldownMs: env.LLM_FAILOVER_COOLDOWN_MS ?? 60_000,
    subagents: { maxDepth: env.SUBAGENT_MAX_DEPTH ?? 1, maxParallel: env.SUBAGENT_MAX_PARALLEL ?? 4 },
    systemPrompt: defaultAgent.systemPrompt,
    maxIterations: defaultAgent.maxIterations,
    historyTurns: env.HISTORY_TURNS ?? 50,
    compactionTimeoutMs: env.COMPACTION_TIMEOUT_MS ?? DEFAULT_COMPACTION_TIMEOUT_MS,
    media: mediaConfig(env),
    agents,
    accounts,
    channelSettings: mergeChannelSettings(file),
    bindings: mergeBindings(file),
    telegram: accounts.telegram[0]?.config,
    slack: accounts.slack[0]?.config,
    feishu: accounts.feishu[0]?.config,
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, ''),
    admin: env.ADMIN_PASSWORD ? { user: env.ADMIN_USER ?? 'admin', password: env.ADMIN_PASSWORD } : undefined,
    adminReadOnly: env.ADMIN_READONLY ?? false,
    adminShowMessageText: env.ADMIN_SHOW_MESSAGE_TEXT ?? false,
    schedules: { minIntervalSeconds: env.SCHEDULE_MIN_INTERVAL_S ?? 60, maxPerChat: env.SCHEDULE_MAX_PER_CHAT ?? 20 },
    embedding: env.EMBEDDING_MODEL ? { model: env.EMBEDDING_MODEL, apiKey: env.OPENAI_API_KEY ?? '', baseUrl: env.OPENAI_BASE_URL } : undefined,
    dmPolicy: env.DM_POLICY ?? access?.dmPolicy ?? 'open',
    allowFrom: env.ALLOW_FROM !== undefined ? attempt(() => entriesOf('ALLOW_FROM', env.ALLOW_FROM!), () => []) : (access?.allowFrom ?? []),
    groupRequireMention: env.GROUP_REQUIRE_MENTION ?? true,
    groupAllowlist:
      env.GROUP_ALLOWLIST !== undefined ? attempt(() => entriesOf('GROUP_ALLOWLIST', env.GROUP_ALLOWLIST!), () => []) : (access?.groupAllowlist ?? []),
    userRateLimit: env.USER_RATE_LIMIT ?? access?.userRateLimit ?? 0,
    inputGuard: env.INPUT_GUARD ?? 'warn',
    typingDelayMs: env.TYPING_DELAY_MS ?? 1_000,
    traceVerbose: env.TRACE_VERBOSE ?? false,
    budgets: {
      ...(env.BUDGET_USER_DAILY_USD !== undefined ? { userDailyUsd: env.BUDGET_USER_DAILY_USD } : {}),
      ...(env.BUDGET_CHAT_DAILY_USD !== undefined ? { chatDailyUsd: env.BUDGET_CHAT_DAILY_USD } : {}),
      ...(env.BUDGET_AGENT_DAILY_USD !== undefined ? { agentDailyUsd: env.BUDGET_AGENT_DAILY_USD } : {}),
    },
    llmPrices: attempt(() => llmPricesOf(env.LLM_PRICES), () => ({})),
    logLevel: env.LOG_LEVEL ?? 'info',
    logFormat: env.LOG_FORMAT ?? 'json',
    telemetry: telemetrySettingsOf(source),
  };
  problems.push(...contradictions(env, file, config));
  return { config, problems };
}

function llmPricesOf(json: string | undefined): AppConfig['llmPrices'] {
  if (json === undefined) return {};
  const prices = parsePriceOverrides(json);
  if (typeof prices === 'string') throw new BotError('config', `LLM_PRICES: ${prices}`);
  return prices;
}

/** TRANSCRIBE_* fall back to the OpenAI settings (CONTRACT §10); no key anywhere: no transcription. */
function mediaConfig(env: Environment): MediaConfig {
  const apiKey = env.TRANSCRIBE_API_KEY || env.OPENAI_API_KEY;
  return {
    maxBytes: env.MEDIA_MAX_BYTES ?? MEDIA_DEFAULTS.maxBytes,
    textMaxChars: env.MEDIA_TEXT_MAX_CHARS ?? MEDIA_DEFAULTS.textMaxChars,
    maxImages: env.MEDIA_MAX_IMAGES ?? MEDIA_DEFAULTS.maxImages,
    groupWaitMs: env.MEDIA_GROUP_WAIT_MS ?? MEDIA_DEFAULTS.groupWaitMs,
    cacheMaxBytes: env.MEDIA_CACHE_MAX_BYTES ?? MEDIA_DEFAULTS.cacheMaxBytes,
    transcribe: apiKey
      ? {
          baseUrl: (env.TRANSCRIBE_BASE_URL ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, ''),
          apiKey,
          model: env.TRANSCRIBE_MODEL ?? MEDIA_DEFAULTS.transcribeModel,
        }
      : undefined,
  };
}

function httpLimits(env: Environment): AppConfig['http'] {
  const requestTimeoutMs = env.HTTP_REQUEST_TIMEOUT_MS ?? DEFAULT_HTTP_LIMITS.requestTimeoutMs;
  if (env.HTTP_HEADERS_TIMEOUT_MS !== undefined && env.HTTP_HEADERS_TIMEOUT_MS > requestTimeoutMs) {
    throw new BotError('config', `HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs}) (got ${env.HTTP_HEADERS_TIMEOUT_MS})`);
  }
  return {
    requestTimeoutMs,
    headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS ?? Math.min(DEFAULT_HTTP_LIMITS.headersTimeoutMs, requestTimeoutMs),
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs,
    connectionTimeoutMs: env.HTTP_CONNECTION_TIMEOUT_MS ?? DEFAULT_HTTP_LIMITS.connectionTimeoutMs,
    maxConnectionsPerAddress: env.HTTP_MAX_CONNECTIONS_PER_ADDRESS ?? DEFAULT_HTTP_LIMITS.maxConnectionsPerAddress,
  };
}

/** Where to fix an account's field: its variable, or its place in the file (the default account: either). */
function accountField(file: LoadedConfigFile | undefined, platform: PlatformName, index: number, field: string, variable: string): string {
  if (!file?.content.channels?.[platform]?.accounts?.length) return variable;
  const pointer = `${file.shown}: /channels/${platform}/accounts/${index}/${field}`;
  return index === 0 ? `${pointer} (or ${variable})` : pointer;
}

function contradictions(env: Environment, file: LoadedConfigFile | undefined, config: AppConfig): string[] {
  const found: string[] = [];
  const fail = (message: string) => found.push(message);
  if (config.role !== 'gateway') {
    const missingKey = checkAgentKeys(env, file, config.agents);
    if (missingKey) fail(missingKey);
  }
  for (const [index, { config: account }] of config.accounts.telegram.entries()) {
    if (account.mode === 'webhook' && !account.webhookSecret) {
      fail(`${accountField(file, 'telegram', index, 'webhookSecret', 'TELEGRAM_WEBHOOK_SECRET')}: required when TELEGRAM_MODE=webhook`);
    }
  }
  for (const [index, { config: account }] of config.accounts.slack.entries()) {
    if (!account.appToken && !account.signingSecret) {
      fail(
        `${accountField(file, 'slack', index, 'signingSecret', 'SLACK_SIGNING_SECRET')}: required with SLACK_BOT_TOKEN for the HTTP Events API (or set SLACK_APP_TOKEN for Socket Mode)`,
      );
    }
  }
  for (const [index, { config: account }] of config.accounts.feishu.entries()) {
    if (!account.appSecret) fail(`${accountField(file, 'feishu', index, 'appSecret', 'FEISHU_APP_SECRET')}: required with FEISHU_APP_ID`);
    if (account.mode === 'webhook' && !account.verificationToken && !account.encryptKey) {
      fail(
        `${accountField(file, 'feishu', index, 'verificationToken', 'FEISHU_VERIFICATION_TOKEN')}: required in webhook mode (or FEISHU_ENCRYPT_KEY) so forged events are refused`,
      );
    }
  }
  if (env.ADMIN_USER && !env.ADMIN_PASSWORD) fail('ADMIN_PASSWORD: required when ADMIN_USER is set');
  if (config.dmPolicy === 'allowlist' && config.allowFrom.length === 0) {
    fail('ALLOW_FROM: required when DM_POLICY=allowlist (comma-separated channel:userId)');
  }
  return found;
}
