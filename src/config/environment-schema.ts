import { Type, type Static } from '@sinclair/typebox';

const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const PositiveInt = Type.Integer({ minimum: 1 });
const Bool = Type.Boolean();
const Url = Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9+.-]*://' });
const Optional = Type.Optional;

/** The environment variables of CONTRACT §2, as TypeBox sees them after string conversion. */
export const EnvironmentSchema = Type.Object({
  CONFIG_FILE: Optional(Type.String({ minLength: 1 })),
  PORT: Optional(Port),
  HOST: Optional(Type.String({ minLength: 1 })),
  ROLE: Optional(Type.Union([Type.Literal('all'), Type.Literal('gateway'), Type.Literal('worker')])),
  DATABASE_URL: Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_MIGRATION_URL: Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOLER: Optional(Type.Union([Type.Literal('none'), Type.Literal('transaction')])),
  REDIS_URL: Optional(Type.String({ pattern: '^rediss?://' })),
  REDIS_CLUSTER: Optional(Bool),
  QUEUE_SHARDS: Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
  SESSION_CACHE_MB: Optional(Type.Integer({ minimum: 0, maximum: 65536 })),
  DATA_DIR: Optional(Type.String({ minLength: 1 })),
  QUEUE_PREFIX: Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' })),
  WORKER_CONCURRENCY: Optional(PositiveInt),
  GROUP_MAX_CONCURRENT: Optional(PositiveInt),
  QUEUE_MODE: Optional(Type.Union([Type.Literal('collect'), Type.Literal('followup'), Type.Literal('interrupt')])),
  INBOUND_DEBOUNCE_MS: Optional(Type.Integer({ minimum: 0 })),
  SHUTDOWN_GRACE_MS: Optional(Type.Integer({ minimum: 0 })),
  APPROVAL_TIMEOUT_MS: Optional(Type.Integer({ minimum: 1000 })),
  CONNECTION_LEASE_MS: Optional(Type.Integer({ minimum: 1000 })),
  TURN_LEASE_MS: Optional(Type.Integer({ minimum: 1000 })),
  WORKER_DEAD_AFTER_MS: Optional(Type.Integer({ minimum: 1000 })),
  LLM_PROVIDER: Optional(Type.Union([Type.Literal('openai'), Type.Literal('anthropic')])),
  LLM_MODEL: Optional(Type.String({ minLength: 1 })),
  LLM_CONTEXT_WINDOW: Optional(PositiveInt),
  LLM_MAX_OUTPUT_TOKENS: Optional(PositiveInt),
  COMPACTION_TIMEOUT_MS: Optional(Type.Integer({ minimum: 1000 })),
  LLM_TIMEOUT_MS: Optional(PositiveInt),
  LLM_MAX_RETRIES: Optional(Type.Integer({ minimum: 0, maximum: 10 })),
  OPENAI_API_KEY: Optional(Type.String()),
  OPENAI_BASE_URL: Optional(Url),
  ANTHROPIC_API_KEY: Optional(Type.String()),
  ANTHROPIC_BASE_URL: Optional(Url),
  LLM_STREAM: Optional(Bool),
  LLM_FALLBACK_MODELS: Optional(Type.String()),
  LLM_FAILOVER_COOLDOWN_MS: Optional(Type.Integer({ minimum: 0 })),
  SUBAGENT_MAX_DEPTH: Optional(Type.Integer({ minimum: 0, maximum: 5 })),
  SUBAGENT_MAX_PARALLEL: Optional(Type.Integer({ minimum: 1, maximum: 32 })),
  SYSTEM_PROMPT: Optional(Type.String()),
  MAX_ITERATIONS: Optional(PositiveInt),
  HISTORY_TURNS: Optional(PositiveInt),
  MEDIA_MAX_BYTES: Optional(PositiveInt),
  MEDIA_TEXT_MAX_CHARS: Optional(PositiveInt),
  MEDIA_MAX_IMAGES: Optional(Type.Integer({ minimum: 0 })),
  MEDIA_GROUP_WAIT_MS: Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  MEDIA_CACHE_MAX_BYTES: Optional(Type.Integer({ minimum: 0 })),
  TRANSCRIBE_BASE_URL: Optional(Url),
  TRANSCRIBE_API_KEY: Optional(Type.String()),
  TRANSCRIBE_MODEL: Optional(Type.String({ minLength: 1 })),
  TELEGRAM_BOT_TOKEN: Optional(Type.String({ pattern: '^[0-9]+:[A-Za-z0-9_-]+$' })),
  TELEGRAM_API_ROOT: Optional(Url),
  TELEGRAM_MODE: Optional(Type.Union([Type.Literal('webhook'), Type.Literal('polling')])),
  TELEGRAM_WEBHOOK_SECRET: Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,256}$' })),
  PUBLIC_URL: Optional(Url),
  SLACK_BOT_TOKEN: Optional(Type.String({ pattern: '^xox[a-z]-' })),
  SLACK_SIGNING_SECRET: Optional(Type.String({ minLength: 1 })),
  SLACK_APP_TOKEN: Optional(Type.String({ pattern: '^xapp-' })),
  SLACK_API_URL: Optional(Url),
  FEISHU_APP_ID: Optional(Type.String({ minLength: 1 })),
  FEISHU_APP_SECRET: Optional(Type.String({ minLength: 1 })),
  FEISHU_VERIFICATION_TOKEN: Optional(Type.String({ minLength: 1 })),
  FEISHU_ENCRYPT_KEY: Optional(Type.String({ minLength: 1 })),
  FEISHU_DOMAIN: Optional(Url),
  FEISHU_MODE: Optional(Type.Union([Type.Literal('webhook'), Type.Literal('websocket')])),
  HTTP_REQUEST_TIMEOUT_MS: Optional(PositiveInt),
  HTTP_HEADERS_TIMEOUT_MS: Optional(PositiveInt),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Optional(PositiveInt),
  HTTP_CONNECTION_TIMEOUT_MS: Optional(PositiveInt),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: Optional(Type.Integer({ minimum: 0 })),
  TRUST_PROXY: Optional(
    Type.String({
      minLength: 1,
      description:
        'Reverse proxies whose X-Forwarded-For header names the client (Fastify\'s trustProxy). Off by default: the client is the ' +
        'connection\'s address, and a forged X-Forwarded-For changes nothing. A hop count (1: one proxy in front), comma-separated ' +
        'addresses or CIDRs of the proxies (10.0.0.0/8,127.0.0.1; loopback, linklocal and uniquelocal name their ranges), or ' +
        'true (the left-most entry, forgeable by anyone who reaches the service directly). The admin login lock-out counts per client ' +
        'address as the trusted proxy reports it.',
    }),
  ),
  ADMIN_USER: Optional(Type.String({ minLength: 1 })),
  ADMIN_PASSWORD: Optional(Type.String({ minLength: 1 })),
  ADMIN_READONLY: Optional(Bool),
  DM_POLICY: Optional(
    Type.Union([Type.Literal('open'), Type.Literal('allowlist'), Type.Literal('pairing'), Type.Literal('disabled')]),
  ),
  ALLOW_FROM: Optional(Type.String()),
  GROUP_REQUIRE_MENTION: Optional(Bool),
  GROUP_ALLOWLIST: Optional(Type.String()),
  USER_RATE_LIMIT: Optional(Type.Integer({ minimum: 0 })),
  INPUT_GUARD: Optional(
    Type.Union([Type.Literal('off'), Type.Literal('log'), Type.Literal('warn'), Type.Literal('block')]),
  ),
  TRACE_VERBOSE: Optional(Bool),
  BUDGET_USER_DAILY_USD: Optional(Type.Number({ minimum: 0 })),
  BUDGET_CHAT_DAILY_USD: Optional(Type.Number({ minimum: 0 })),
  BUDGET_AGENT_DAILY_USD: Optional(Type.Number({ minimum: 0 })),
  LLM_PRICES: Optional(Type.String()),
  SCHEDULE_MIN_INTERVAL_S: Optional(PositiveInt),
  SCHEDULE_MAX_PER_CHAT: Optional(Type.Integer({ minimum: 0 })),
  EMBEDDING_MODEL: Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Optional(
    Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level))),
  ),
  LOG_FORMAT: Optional(Type.Union([Type.Literal('json'), Type.Literal('pretty')])),
});

export type Environment = Static<typeof EnvironmentSchema>;
