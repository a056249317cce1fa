import { CloneType, Type, type Static, type TSchema } from '@sinclair/typebox';

const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const PositiveInt = Type.Integer({ minimum: 1 });
const Bool = Type.Boolean();
const Url = Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9+.-]*://' });
const Optional = Type.Optional;

/**
 * An optional variable with what docs/configuration.md says of it (`npm run docs:config` generates the page from
 * these; test/docs/configuration-reference.test.ts fails when they disagree). `default` is documentation only:
 * the code applies its own, and the same test checks that setting a variable to its documented default changes
 * nothing.
 */
const documented = <T extends TSchema>(schema: T, docs: { description: string; default?: unknown }) => Optional(CloneType(schema, docs));

/** The environment variables of CONTRACT §2, as TypeBox sees them after string conversion. */
export const EnvironmentSchema = Type.Object({
  CONFIG_FILE: documented(Type.String({ minLength: 1 }), { description: "The config file (YAML; path relative to the working directory) for several agents and bot accounts. Unset: `bot.config.yaml` when the working directory has one. A missing file is an error." }),
  PORT: documented(Port, { description: "Port of the HTTP gateway (webhooks, health, metrics, `/admin`).", default: 8080 }),
  HOST: documented(Type.String({ minLength: 1 }), { description: "Address the HTTP gateway listens on.", default: "0.0.0.0" }),
  ROLE: documented(Type.Union([Type.Literal('all'), Type.Literal('gateway'), Type.Literal('worker')]), { description: "What this process runs: `all` (gateway and workers), `gateway` (webhooks and the console, no turns) or `worker` (turns only).", default: "all" }),
  DATABASE_URL: documented(Type.String({ pattern: '^postgres(ql)?://' }), { description: "`postgres://…` of PostgreSQL, directly or through a pooler (see `DATABASE_POOLER`). Unset: an embedded PostgreSQL (PGlite) under `DATA_DIR`." }),
  DATABASE_MIGRATION_URL: documented(Type.String({ pattern: '^postgres(ql)?://' }), { description: "A direct `postgres://…` of the same database for migrations, which hold a session-level lock. Unset: `DATABASE_URL`. Required with `DATABASE_POOLER=transaction` (and must then not be the pooler)." }),
  DATABASE_POOLER: documented(Type.Union([Type.Literal('none'), Type.Literal('transaction')]), { description: "What `DATABASE_URL` goes through: `none` (PostgreSQL, or a pooler in session mode) or `transaction` (PgBouncer `pool_mode = transaction` and the like: no named prepared statements, no session state). A start-up with `none` that finds one connection served by two server sessions stops, naming this variable.", default: "none" }),
  REDIS_URL: documented(Type.String({ pattern: '^rediss?://' }), { description: "`redis://…` (or `rediss://`); with `REDIS_CLUSTER=true`, comma-separated seeds. Unset: a `redis-server` from `PATH` is started as a child process with its data under `DATA_DIR`." }),
  REDIS_CLUSTER: documented(Bool, { description: "`true`: `REDIS_URL` names a Redis Cluster; every key is hash-tagged so each script touches one slot.", default: false }),
  QUEUE_SHARDS: documented(Type.Integer({ minimum: 1, maximum: 1024 }), { description: "Shards of the session queue, each under its own hash tag so they spread over a cluster's masters. Default `1`, or `16` with `REDIS_CLUSTER=true`. Every process of a deployment must use the same value." }),
  SESSION_CACHE_MB: documented(Type.Integer({ minimum: 0, maximum: 65536 }), { description: "Memory a worker keeps for returning sessions' rows and recent history (least recently used out first); `0` reads them from PostgreSQL every turn.", default: 32 }),
  DATA_DIR: documented(Type.String({ minLength: 1 }), { description: "Embedded databases, per-user workspaces, the media cache. With an embedded store, one process per folder (`DATA_DIR/service.lock`).", default: "./data" }),
  QUEUE_PREFIX: documented(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' }), { description: "Prefix of every Redis key (session queue, BullMQ, schedules), so that several deployments can share one Redis.", default: "bot" }),
  WORKER_CONCURRENCY: documented(PositiveInt, { description: "Turns one worker process runs at once. A turn waiting on the model holds memory, not CPU, so this bounds memory.", default: 1000 }),
  GROUP_MAX_CONCURRENT: documented(PositiveInt, { description: "Concurrent turns in one group-chat session; more wait (and are collected) as in a DM.", default: 3 }),
  QUEUE_MODE: documented(Type.Union([Type.Literal('collect'), Type.Literal('followup'), Type.Literal('interrupt')]), { description: "Messages that arrive while a turn runs: `collect` (into the next turn), `followup` (one turn each) or `interrupt` (abort, start on the newest). The config file may override it per channel, account or group.", default: "collect" }),
  INBOUND_DEBOUNCE_MS: documented(Type.Integer({ minimum: 0 }), { description: "Merge rapid-fire messages of a session that arrive within this window into one turn; `0`: off.", default: 0 }),
  SHUTDOWN_GRACE_MS: documented(Type.Integer({ minimum: 0 }), { description: "How long a stop (SIGTERM, SIGINT) may take in all; running turns may finish until a fifth of it (1–5 s) before its end, then they are handed back.", default: 25_000 }),
  APPROVAL_TIMEOUT_MS: documented(Type.Integer({ minimum: 1000 }), { description: "How long a tool call waits for a person's approval in the chat before it counts as denied.", default: 600_000 }),
  MCP_STARTUP_WAIT_MS: documented(Type.Integer({ minimum: 0, maximum: 600_000 }), {
    description:
      "How long after a worker starts its turns wait for the first connection attempt of their agent's MCP servers (0: never wait). " +
      'A turn then runs with the servers that connected; the model is told which are unavailable, and a call to a tool of a server ' +
      'that is not connected gets an error naming the server. /readyz never waits for MCP.',
    default: 5000,
  }),
  CONNECTION_LEASE_MS: documented(Type.Integer({ minimum: 1000 }), { description: "Lease in Redis under which one process holds Telegram long polling, Slack Socket Mode or the Feishu long connection; when that process dies another takes over within it (plus a quarter).", default: 20_000 }),
  TURN_LEASE_MS: documented(Type.Integer({ minimum: 1000 }), { description: "A running turn's lease in Redis: the backstop when a worker's death goes unnoticed.", default: 15_000 }),
  WORKER_DEAD_AFTER_MS: documented(Type.Integer({ minimum: 1000 }), { description: "A worker beats in Redis every quarter of this; silent this long, it counts as dead and its turns are taken over.", default: 4000 }),
  TURN_FAILING_NOTICE_MS: documented(Type.Integer({ minimum: 0 }), {
    description: 'A turn failing a retryable way (every model of its chain, PostgreSQL, a platform) tells its user once, by this many ms after its first failure (later when its attempts are slow), that the bot keeps trying and that /stop cancels; `0`: at the first failure.',
    default: 30_000,
  }),
  TURN_RETRY_ATTEMPTS: documented(Type.Integer({ minimum: 1, maximum: 50 }), { description: 'Attempts of a failing turn in one round, `TURN_RETRY_FIRST_DELAY_MS` (2 s) apart, doubling to a minute.', default: 12 }),
  TURN_RETRY_FIRST_DELAY_MS: documented(Type.Integer({ minimum: 0, maximum: 60_000 }), { description: "The wait after a round's first failed attempt of a turn; it doubles after each further one, up to a minute.", default: 2000 }),
  TURN_RETRY_ROUNDS: documented(Type.Integer({ minimum: 0, maximum: 20 }), {
    description: 'Further rounds of attempts after the first, each after `TURN_RETRY_ROUND_DELAY_MS`; then the turn is a dead letter (the queue view\'s failed tab) and its user is told.',
    default: 3,
  }),
  TURN_RETRY_ROUND_DELAY_MS: documented(Type.Integer({ minimum: 0 }), { description: 'The wait before each further round of attempts. With the defaults a failing turn is retried for about 43 minutes of waits in all.', default: 300_000 }),
  LLM_PROVIDER: documented(Type.Union([Type.Literal('openai'), Type.Literal('anthropic')]), { description: "`openai` (any OpenAI-compatible server) or `anthropic`. Default: `openai` when `OPENAI_API_KEY` is set, else `anthropic` when `ANTHROPIC_API_KEY` is." }),
  LLM_MODEL: documented(Type.String({ minLength: 1 }), { description: "The default agent's model. Default: `gpt-4o-mini` (OpenAI) or `claude-sonnet-4-6` (Anthropic)." }),
  LLM_CONTEXT_WINDOW: documented(PositiveInt, { description: "The default agent's context window in tokens. Default: the provider's (128000 OpenAI, 200000 Anthropic)." }),
  LLM_MAX_OUTPUT_TOKENS: documented(PositiveInt, { description: "The output cap every model request of the default agent carries; budgets reserve against it. Summaries and memory flushes ask for less.", default: 4096 }),
  COMPACTION_TIMEOUT_MS: documented(Type.Integer({ minimum: 1000 }), { description: "The most a compaction (memory flush, then summary) may take; past it a waiting turn trims its context instead. The flush gets a third of it.", default: 30_000 }),
  LLM_TIMEOUT_MS: documented(PositiveInt, { description: "Timeout of one model request.", default: 120_000 }),
  LLM_MAX_RETRIES: documented(Type.Integer({ minimum: 0, maximum: 10 }), { description: "Retries of a failed model request (honouring `Retry-After`) before failover or failure.", default: 4 }),
  OPENAI_API_KEY: documented(Type.String(), { description: "Key for the OpenAI API or an OpenAI-compatible server (also embeddings and, by default, transcription)." }),
  OPENAI_BASE_URL: documented(Url, { description: "Base URL of an OpenAI-compatible server. Unset: OpenAI's." }),
  ANTHROPIC_API_KEY: documented(Type.String(), { description: "Key for the Anthropic API." }),
  ANTHROPIC_BASE_URL: documented(Url, { description: "Base URL of the Anthropic API (or a compatible server). Unset: Anthropic's." }),
  LLM_STREAM: documented(Bool, { description: "Stream tokens from the model and, where the channel supports it, edit the reply in place.", default: true }),
  LLM_FALLBACK_MODELS: documented(Type.String(), { description: "Comma-separated `[provider:]model` the default agent's calls go to, in order, when its model fails with a retryable error; each uses its provider's `*_API_KEY` and `*_BASE_URL`. Unset: no failover." }),
  LLM_MODELS: documented(Type.String(), { description: "Comma-separated `[provider:]model` a chat of the default agent may choose with `/model` besides `LLM_MODEL`; each uses its provider's `*_API_KEY` and `*_BASE_URL`, and the agent's fallbacks. Unset: the config file's `models`, else only `LLM_MODEL`." }),
  MODEL_CHOICE: documented(Type.Union([Type.Literal('session'), Type.Literal('chat')]), { description: "What a `/model` choice of the default agent applies to: `session` (the topic or thread it was made in) or `chat` (every session of the chat: all its Telegram topics and Slack threads, those started later too). The config file's agent key `modelChoice` for other agents.", default: "session" }),
  LLM_FAILOVER_COOLDOWN_MS: documented(Type.Integer({ minimum: 0 }), { description: "How long a model that failed is skipped by every process (kept in Redis); `0`: never skipped.", default: 60_000 }),
  SUBAGENT_MAX_DEPTH: documented(Type.Integer({ minimum: 0, maximum: 5 }), { description: "How deep `spawn_agent` children may go: `1` children cannot spawn, `0` no `spawn_agent` at all.", default: 1 }),
  SUBAGENT_MAX_PARALLEL: documented(Type.Integer({ minimum: 1, maximum: 32 }), { description: "`spawn_agent` children of one model response running at once; the others wait.", default: 4 }),
  SYSTEM_PROMPT: documented(Type.String(), { description: "The default agent's identity text, prepended to the assembled prompt. Unset: the built-in persona." }),
  MAX_ITERATIONS: documented(PositiveInt, { description: "Model↔tool cycles in one turn of the default agent.", default: 20 }),
  HISTORY_TURNS: documented(PositiveInt, { description: "User turns of history sent to the model.", default: 50 }),
  MEDIA_MAX_BYTES: documented(PositiveInt, { description: "An attachment over this many bytes is not used (the reply names it).", default: 20_971_520 }),
  MEDIA_TEXT_MAX_CHARS: documented(PositiveInt, { description: "A document's text (and a transcript) reaches the model up to this many characters, then a note says what was left out.", default: 100_000 }),
  MEDIA_MAX_IMAGES: documented(Type.Integer({ minimum: 0 }), { description: "Images per turn shown to the model; further ones are named in the reply.", default: 8 }),
  MEDIA_GROUP_WAIT_MS: documented(Type.Integer({ minimum: 0, maximum: 10_000 }), { description: "A Telegram album's parts arrive as separate updates: the turn waits until the newest part is this old, then answers all as one.", default: 1000 }),
  MEDIA_CACHE_MAX_BYTES: documented(Type.Integer({ minimum: 0 }), { description: "Bound of `DATA_DIR/media-cache/`, where downloads are kept (a day at most) for retried or taken-over turns; `0`: off.", default: 268_435_456 }),
  TRANSCRIBE_BASE_URL: documented(Url, { description: "OpenAI-compatible server for `POST …/audio/transcriptions` (voice notes, audio). Unset: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`." }),
  TRANSCRIBE_API_KEY: documented(Type.String(), { description: "Key for transcription. Unset: `OPENAI_API_KEY`; no key at all: users are told voice messages are not supported." }),
  TRANSCRIBE_MODEL: documented(Type.String({ minLength: 1 }), { description: "Transcription model.", default: "gpt-4o-mini-transcribe" }),
  TELEGRAM_BOT_TOKEN: documented(Type.String({ pattern: '^[0-9]+:[A-Za-z0-9_-]+$' }), { description: "The bot's token from @BotFather. Unset: Telegram off (unless the config file has accounts)." }),
  TELEGRAM_API_ROOT: documented(Url, { description: "Bot API base URL (a local Bot API server, or a test double).", default: "https://api.telegram.org" }),
  TELEGRAM_MODE: documented(Type.Union([Type.Literal('webhook'), Type.Literal('polling')]), { description: "`polling` (long polling, nothing reachable from the internet needed) or `webhook`.", default: "polling" }),
  TELEGRAM_WEBHOOK_SECRET: documented(Type.String({ pattern: '^[A-Za-z0-9_-]{1,256}$' }), { description: "Required in webhook mode: checked against `X-Telegram-Bot-Api-Secret-Token` (1–256 of `A-Z a-z 0-9 _ -`)." }),
  TELEGRAM_NEW_CONVERSATION_TOPIC: documented(Bool, { description: "`true`: `/new` in a private chat with topics (threaded mode, Bot API 9.3; @BotFather's setting) opens a fresh topic named \"New conversation\" and the date (renamed after its first message) instead of clearing the topic the user is in. `false`, or the bot without threaded mode: `/new` clears the current topic's conversation.", default: false }),
  PUBLIC_URL: documented(Url, { description: "The service's public base URL. In Telegram webhook mode the service registers `${PUBLIC_URL}/webhooks/telegram` at start; the console accepts it as an origin." }),
  SLACK_BOT_TOKEN: documented(Type.String({ pattern: '^xox[a-z]-' }), { description: "The Slack app's bot token (`xoxb-…`). Unset: Slack off (unless the config file has accounts)." }),
  SLACK_SIGNING_SECRET: documented(Type.String({ minLength: 1 }), { description: "The Slack app's signing secret: verifies Events API, slash command and interaction requests over HTTP." }),
  SLACK_APP_TOKEN: documented(Type.String({ pattern: '^xapp-' }), { description: "An app-level token (`xapp-…`, `connections:write`): Socket Mode instead of HTTP." }),
  SLACK_API_URL: documented(Url, { description: "Web API base URL (for a test double). Unset: `https://slack.com/api/`." }),
  FEISHU_APP_ID: documented(Type.String({ minLength: 1 }), { description: "The Feishu/Lark app's id. Unset: Feishu off (unless the config file has accounts)." }),
  FEISHU_APP_SECRET: documented(Type.String({ minLength: 1 }), { description: "The Feishu/Lark app's secret." }),
  FEISHU_VERIFICATION_TOKEN: documented(Type.String({ minLength: 1 }), { description: "Event subscription verification token (webhook mode)." }),
  FEISHU_ENCRYPT_KEY: documented(Type.String({ minLength: 1 }), { description: "Event subscription encrypt key: encrypted events are decrypted and every event's signature is checked." }),
  FEISHU_DOMAIN: documented(Url, { description: "Open API base: `https://open.larksuite.com` for Lark, or a test double.", default: "https://open.feishu.cn" }),
  FEISHU_MODE: documented(Type.Union([Type.Literal('webhook'), Type.Literal('websocket')]), { description: "`webhook` (event subscription over HTTP) or `websocket` (the long connection, nothing reachable from the internet needed).", default: "webhook" }),
  HTTP_REQUEST_TIMEOUT_MS: documented(PositiveInt, { description: "A request (headers and body) must arrive within this, or it gets 408 and its connection is closed.", default: 30_000 }),
  HTTP_HEADERS_TIMEOUT_MS: documented(PositiveInt, { description: "The same for the request's headers (at most `HTTP_REQUEST_TIMEOUT_MS`).", default: 10_000 }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: documented(PositiveInt, { description: "An idle kept-alive connection is closed after this (above the 60 s idle timeout of common load balancers).", default: 72_000 }),
  HTTP_CONNECTION_TIMEOUT_MS: documented(PositiveInt, { description: "A connection with no traffic either way for this long is closed.", default: 90_000 }),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: documented(Type.Integer({ minimum: 0 }), { description: "Concurrent connections one remote address may hold; further ones are closed on arrival. `0`: no cap. Behind a reverse proxy every client shares the proxy's address: set `0` (and limit at the proxy) or a value above its concurrency.", default: 256 }),
  TRUST_PROXY: documented(Type.String({ minLength: 1 }), {
    description:
      "Reverse proxies whose X-Forwarded-For header names the client (Fastify's trustProxy). Off by default: the client is the " +
      "connection's address, and a forged X-Forwarded-For changes nothing. A hop count (1: one proxy in front), comma-separated " +
      'addresses or CIDRs of the proxies (10.0.0.0/8,127.0.0.1; loopback, linklocal and uniquelocal name their ranges), or ' +
      '`true` (the left-most entry, forgeable by anyone who reaches the service directly). The admin login lock-out counts per client ' +
      'address (and user name) as the trusted proxy reports it.',
  }),
  ADMIN_USER: documented(Type.String({ minLength: 1 }), { description: "Basic-auth user for everything under `/admin` (console and queue dashboard). Unset (or no `ADMIN_PASSWORD`): nothing is mounted there." }),
  ADMIN_PASSWORD: documented(Type.String({ minLength: 1 }), { description: "Basic-auth password for `/admin`; wrong ones are slowed down, then locked out per client address and user name (see TRUST_PROXY behind a proxy)." }),
  ADMIN_READONLY: documented(Bool, { description: "`true`: the console and the queue dashboard show everything but offer no actions; state-changing requests are refused.", default: false }),
  ADMIN_SHOW_MESSAGE_TEXT: documented(Bool, {
    description: 'The queue view (`/admin/queues`) shows the text of the messages of running, waiting and failed turns; off: only ids, lengths and kinds. For operators allowed to read transcripts.',
    default: false,
  }),
  DM_POLICY: documented(
    Type.Union([Type.Literal('open'), Type.Literal('allowlist'), Type.Literal('pairing'), Type.Literal('disabled')]),
    { description: "Who may write to the bot directly: `open`, `allowlist` (`ALLOW_FROM`), `pairing` (strangers get a code an operator approves) or `disabled`. Direct messages only: groups need `GROUP_ALLOWLIST`.", default: "open" },
  ),
  ALLOW_FROM: documented(Type.String(), { description: "Comma-separated `channel:userId` (e.g. `telegram:123,slack:U1`) always allowed to DM (`allowlist` and `pairing`)." }),
  GROUP_REQUIRE_MENTION: documented(Bool, { description: "In groups, answer only when mentioned, replied to, or commanded; the config file may override it per channel, account or group.", default: true }),
  GROUP_ALLOWLIST: documented(Type.String(), { description: "Comma-separated `channel:chatId`; set: messages from other groups are ignored. Unset: every group." }),
  USER_RATE_LIMIT: documented(Type.Integer({ minimum: 0 }), { description: "Messages per user per minute that may start turns (counted in Redis across processes); `0`: no limit.", default: 0 }),
  INPUT_GUARD: documented(
    Type.Union([Type.Literal('off'), Type.Literal('log'), Type.Literal('warn'), Type.Literal('block')]),
    { description: "Prompt-injection scan of what users send: `off`, `log`, `warn` or `block`.", default: "warn" },
  ),
  TYPING_DELAY_MS: documented(Type.Integer({ minimum: 0 }), { description: "A turn shows the platform's working indicator (Telegram's typing action, the Slack and Feishu reaction or status) once it has run this long; a quicker answer arrives without one, sparing the platform calls. `0`: at once.", default: 1000 }),
  TRACE_VERBOSE: documented(Bool, { description: "Also store each model request (truncated) on the run's spans.", default: false }),
  BUDGET_USER_DAILY_USD: documented(Type.Number({ minimum: 0 }), { description: "Daily USD limit (UTC days) per user, enforced across all processes. Unset: no limit." }),
  BUDGET_CHAT_DAILY_USD: documented(Type.Number({ minimum: 0 }), { description: "Daily USD limit per chat. Unset: no limit." }),
  BUDGET_AGENT_DAILY_USD: documented(Type.Number({ minimum: 0 }), { description: "Daily USD limit per agent over all its chats. Unset: no limit." }),
  LLM_PRICES: documented(Type.String(), { description: "JSON `{ \"<model>\": { \"input\": usdPerMTok, \"output\": usdPerMTok, \"cacheRead\"?, \"cacheWrite\"? } }`: adds to or overrides the built-in price table." }),
  SCHEDULE_MIN_INTERVAL_S: documented(PositiveInt, { description: "Shortest interval a scheduled task may repeat at (`every_seconds`, and the gap between cron firings).", default: 60 }),
  SCHEDULE_MAX_PER_CHAT: documented(Type.Integer({ minimum: 0 }), { description: "Active or paused scheduled tasks one chat may have.", default: 20 }),
  EMBEDDING_MODEL: documented(Type.String({ minLength: 1 }), { description: "An OpenAI embeddings model (e.g. `text-embedding-3-small`): memories are also searched by embeddings when PostgreSQL has the `vector` extension. Unset: full-text search only." }),
  LOG_LEVEL: documented(
    Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level))),
    { description: "pino log level.", default: "info" },
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: documented(Url, { description: "OpenTelemetry export over OTLP/HTTP: the collector's base URL (`/v1/traces` and `/v1/metrics` are added). Unset (and no `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`): no traces are exported and no part of the OpenTelemetry SDK is loaded. The other standard `OTEL_EXPORTER_OTLP_*` variables (headers, timeout, compression, per-signal endpoints) apply as the OpenTelemetry exporters read them." }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: documented(Url, { description: "The full URL traces are posted to (overrides `OTEL_EXPORTER_OTLP_ENDPOINT` for traces); set, traces are exported." }),
  OTEL_EXPORTER_OTLP_PROTOCOL: documented(Type.Union([Type.Literal('http/protobuf'), Type.Literal('http/json')]), { description: "OTLP encoding: `http/protobuf` or `http/json` (gRPC is not offered).", default: "http/protobuf" }),
  OTEL_SERVICE_NAME: documented(Type.String({ minLength: 1 }), { description: "`service.name` of the exported traces and metrics (`OTEL_RESOURCE_ATTRIBUTES` adds more).", default: "chatbot-service" }),
  OTEL_TRACES_SAMPLER: documented(
    Type.Union(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'].map((name) => Type.Literal(name))),
    { description: "Which turns are traced (`OTEL_TRACES_SAMPLER_ARG` is the ratio of the `traceidratio` samplers). A turn's trace id comes from its turn id, so every attempt of a turn gets the same decision.", default: "parentbased_always_on" },
  ),
  OTEL_TRACES_SAMPLER_ARG: documented(Type.String(), { description: "The sampling ratio (0–1) for `traceidratio` and `parentbased_traceidratio`.", default: "1" }),
  OTEL_GENAI_CAPTURE_CONTENT: documented(Bool, { description: "Record message text, tool arguments and tool results on the spans. Off: spans carry models, tokens, timings and tool names only.", default: false }),
  OTEL_METRICS_EXPORTER: documented(Type.Union([Type.Literal('none'), Type.Literal('otlp'), Type.Literal('prometheus')]), { description: "`otlp`: the instruments of `GET /metrics` are also pushed to the OTLP endpoint every `OTEL_METRIC_EXPORT_INTERVAL` ms (`/metrics` stays). Otherwise they are only scraped.", default: "prometheus" }),
  LOG_FORMAT: documented(Type.Union([Type.Literal('json'), Type.Literal('pretty')]), { description: "`json` (one object a line) or `pretty` (for humans).", default: "json" }),
});

export type Environment = Static<typeof EnvironmentSchema>;
