import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { BotError } from '../core/errors.js';
import type { AppConfig, LlmConfig } from './app-config.js';
import { EnvironmentSchema, type Environment } from './environment-schema.js';

const DEFAULT_MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-6' } as const;
const DEFAULT_CONTEXT_WINDOWS = { openai: 128_000, anthropic: 200_000 } as const;

/** Reads `.env` from the working directory (without overriding the real environment). */
export function readDotEnv(directory = process.cwd()): void {
  const file = resolve(directory, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
}

function parseEnvironment(source: NodeJS.ProcessEnv): Environment {
  const known = Object.keys(EnvironmentSchema.properties);
  const picked: Record<string, unknown> = {};
  for (const key of known) {
    const value = source[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const converted = Value.Convert(EnvironmentSchema, picked);
  const firstError = Value.Errors(EnvironmentSchema, converted).First();
  if (firstError) {
    const variable = firstError.path.replace(/^\//, '');
    const shown = /KEY|TOKEN|SECRET|PASSWORD/.test(variable) ? '(hidden)' : JSON.stringify(picked[variable]);
    throw new BotError('config', `${variable}: ${firstError.message} (got ${shown})`);
  }
  return converted as Environment;
}

function resolveLlm(env: Environment): LlmConfig {
  const provider = env.LLM_PROVIDER ?? (env.OPENAI_API_KEY ? 'openai' : env.ANTHROPIC_API_KEY ? 'anthropic' : 'openai');
  const apiKey = provider === 'openai' ? env.OPENAI_API_KEY : env.ANTHROPIC_API_KEY;
  return {
    provider,
    model: env.LLM_MODEL ?? DEFAULT_MODELS[provider],
    apiKey: apiKey ?? '',
    baseUrl: provider === 'openai' ? env.OPENAI_BASE_URL : env.ANTHROPIC_BASE_URL,
    stream: env.LLM_STREAM ?? true,
    contextWindow: env.LLM_CONTEXT_WINDOW ?? DEFAULT_CONTEXT_WINDOWS[provider],
    timeoutMs: env.LLM_TIMEOUT_MS ?? 120_000,
    maxRetries: env.LLM_MAX_RETRIES ?? 4,
  };
}

function checkContradictions(env: Environment, config: AppConfig): void {
  if (config.role !== 'gateway' && !config.llm.apiKey) {
    if (env.LLM_PROVIDER === 'openai') throw new BotError('config', 'OPENAI_API_KEY: required when LLM_PROVIDER=openai');
    if (env.LLM_PROVIDER === 'anthropic') throw new BotError('config', 'ANTHROPIC_API_KEY: required when LLM_PROVIDER=anthropic');
    throw new BotError('config', 'OPENAI_API_KEY or ANTHROPIC_API_KEY: one is required to answer messages (workers call the LLM)');
  }
  if (config.telegram?.mode === 'webhook' && !config.telegram.webhookSecret) {
    throw new BotError('config', 'TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_MODE=webhook');
  }
  if (config.slack && !config.slack.appToken && !env.SLACK_SIGNING_SECRET) {
    throw new BotError('config', 'SLACK_SIGNING_SECRET: required with SLACK_BOT_TOKEN for the HTTP Events API (or set SLACK_APP_TOKEN for Socket Mode)');
  }
  if (config.feishu && !env.FEISHU_APP_SECRET) {
    throw new BotError('config', 'FEISHU_APP_SECRET: required with FEISHU_APP_ID');
  }
  if (config.feishu?.mode === 'webhook' && !config.feishu.verificationToken && !config.feishu.encryptKey) {
    throw new BotError('config', 'FEISHU_VERIFICATION_TOKEN: required in webhook mode (or FEISHU_ENCRYPT_KEY) so forged events are refused');
  }
  if (env.ADMIN_USER && !env.ADMIN_PASSWORD) {
    throw new BotError('config', 'ADMIN_PASSWORD: required when ADMIN_USER is set');
  }
  if (config.dmPolicy === 'allowlist' && config.allowFrom.length === 0) {
    throw new BotError('config', 'ALLOW_FROM: required when DM_POLICY=allowlist (comma-separated channel:userId)');
  }
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = parseEnvironment(source);
  const config: AppConfig = {
    port: env.PORT ?? 8080,
    host: env.HOST ?? '0.0.0.0',
    role: env.ROLE ?? 'all',
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    dataDir: resolve(env.DATA_DIR ?? './data'),
    queuePrefix: env.QUEUE_PREFIX ?? 'bot',
    workerConcurrency: env.WORKER_CONCURRENCY ?? 32,
    groupMaxConcurrent: env.GROUP_MAX_CONCURRENT ?? 3,
    queueMode: env.QUEUE_MODE ?? 'collect',
    inboundDebounceMs: env.INBOUND_DEBOUNCE_MS ?? 0,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS ?? 25_000,
    turnLeaseMs: env.TURN_LEASE_MS ?? 15_000,
    llm: resolveLlm(env),
    systemPrompt: env.SYSTEM_PROMPT,
    maxIterations: env.MAX_ITERATIONS ?? 20,
    historyTurns: env.HISTORY_TURNS ?? 50,
    telegram: env.TELEGRAM_BOT_TOKEN
      ? {
          token: env.TELEGRAM_BOT_TOKEN,
          apiRoot: env.TELEGRAM_API_ROOT ?? 'https://api.telegram.org',
          mode: env.TELEGRAM_MODE ?? 'polling',
          webhookSecret: env.TELEGRAM_WEBHOOK_SECRET,
        }
      : undefined,
    slack: env.SLACK_BOT_TOKEN
      ? {
          botToken: env.SLACK_BOT_TOKEN,
          signingSecret: env.SLACK_SIGNING_SECRET ?? '',
          appToken: env.SLACK_APP_TOKEN,
          apiUrl: env.SLACK_API_URL ?? 'https://slack.com/api/',
        }
      : undefined,
    feishu: env.FEISHU_APP_ID
      ? {
          appId: env.FEISHU_APP_ID,
          appSecret: env.FEISHU_APP_SECRET ?? '',
          verificationToken: env.FEISHU_VERIFICATION_TOKEN,
          encryptKey: env.FEISHU_ENCRYPT_KEY,
          domain: (env.FEISHU_DOMAIN ?? 'https://open.feishu.cn').replace(/\/+$/, ''),
          mode: env.FEISHU_MODE ?? 'webhook',
        }
      : undefined,
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, ''),
    admin: env.ADMIN_PASSWORD ? { user: env.ADMIN_USER ?? 'admin', password: env.ADMIN_PASSWORD } : undefined,
    dmPolicy: env.DM_POLICY ?? 'open',
    allowFrom: (env.ALLOW_FROM ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    groupRequireMention: env.GROUP_REQUIRE_MENTION ?? true,
    inputGuard: env.INPUT_GUARD ?? 'warn',
    traceVerbose: env.TRACE_VERBOSE ?? false,
    logLevel: env.LOG_LEVEL ?? 'info',
    logFormat: env.LOG_FORMAT ?? 'json',
  };
  checkContradictions(env, config);
  return config;
}
