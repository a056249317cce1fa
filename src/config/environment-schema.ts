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
  REDIS_URL: Optional(Type.String({ pattern: '^rediss?://' })),
  DATA_DIR: Optional(Type.String({ minLength: 1 })),
  QUEUE_PREFIX: Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' })),
  WORKER_CONCURRENCY: Optional(PositiveInt),
  GROUP_MAX_CONCURRENT: Optional(PositiveInt),
  QUEUE_MODE: Optional(Type.Union([Type.Literal('collect'), Type.Literal('followup'), Type.Literal('interrupt')])),
  INBOUND_DEBOUNCE_MS: Optional(Type.Integer({ minimum: 0 })),
  SHUTDOWN_GRACE_MS: Optional(Type.Integer({ minimum: 0 })),
  TURN_LEASE_MS: Optional(Type.Integer({ minimum: 1000 })),
  LLM_PROVIDER: Optional(Type.Union([Type.Literal('openai'), Type.Literal('anthropic')])),
  LLM_MODEL: Optional(Type.String({ minLength: 1 })),
  LLM_CONTEXT_WINDOW: Optional(PositiveInt),
  LLM_TIMEOUT_MS: Optional(PositiveInt),
  LLM_MAX_RETRIES: Optional(Type.Integer({ minimum: 0, maximum: 10 })),
  OPENAI_API_KEY: Optional(Type.String()),
  OPENAI_BASE_URL: Optional(Url),
  ANTHROPIC_API_KEY: Optional(Type.String()),
  ANTHROPIC_BASE_URL: Optional(Url),
  LLM_STREAM: Optional(Bool),
  SYSTEM_PROMPT: Optional(Type.String()),
  MAX_ITERATIONS: Optional(PositiveInt),
  HISTORY_TURNS: Optional(PositiveInt),
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
  SCHEDULE_MIN_INTERVAL_S: Optional(PositiveInt),
  SCHEDULE_MAX_PER_CHAT: Optional(Type.Integer({ minimum: 0 })),
  EMBEDDING_MODEL: Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Optional(
    Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level))),
  ),
  LOG_FORMAT: Optional(Type.Union([Type.Literal('json'), Type.Literal('pretty')])),
});

export type Environment = Static<typeof EnvironmentSchema>;
