import type { TelemetrySettings } from '../observability/telemetry-settings.js';
import type { MediaConfig } from '../media/media-config.js';
import type { ToolsConfig } from '../agent/tools/tools-config.js';
import type { ToolPolicy } from '../agent/tools/tool-registry.js';
import type { HttpLimits } from './http-limits.js';
import type { TrustProxy } from './trust-proxy.js';
import type { LlmConfig } from '../llm/llm-config.js';
import type { McpServerConfig } from '../mcp/mcp-config.js';
import type { BudgetLimits } from '../budgets/budget-limits.js';
import type { ModelPrice } from '../llm/pricing.js';
import type { DatabasePooler } from '../store/database.js';

export type Role = 'all' | 'gateway' | 'worker';
export type QueueMode = 'collect' | 'followup' | 'interrupt';
export type InputGuardMode = 'off' | 'log' | 'warn' | 'block';
/** Where answers stream into a message edited in place: nowhere, in direct messages, everywhere. */
export type StreamingMode = 'off' | 'dm' | 'all';
export type DmPolicy = 'open' | 'allowlist' | 'pairing' | 'disabled';
export type PlatformName = 'telegram' | 'slack' | 'feishu';
export type { LlmConfig };

export interface TelegramConfig {
  token: string;
  apiRoot: string;
  mode: 'webhook' | 'polling';
  webhookSecret: string | undefined;
  /** TELEGRAM_NEW_CONVERSATION_TOPIC: `/new` in a private chat in threaded mode opens a fresh topic (when the bot may). */
  newConversationTopic?: boolean;
}

export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  /** Set: Socket Mode instead of the HTTP Events API. */
  appToken: string | undefined;
  apiUrl: string;
}

export interface FeishuConfig {
  appId: string;
  appSecret: string;
  verificationToken: string | undefined;
  encryptKey: string | undefined;
  domain: string;
  mode: 'webhook' | 'websocket';
}

/** What a `/model` choice applies to (CONTRACT §20). */
export type ModelChoiceScope = 'session' | 'chat';

/** One agent: its own model, prompt, tools and limits. The first agent is the default one. */
export interface AgentConfig {
  id: string;
  llm: LlmConfig;
  /** Replaces the built-in persona at the top of the prompt (SYSTEM_PROMPT for the default agent). */
  systemPrompt: string | undefined;
  maxIterations: number;
  tools: ToolsConfig;
  toolPolicy: ToolPolicy;
  /** Scheduled runs: the privileged tools a firing may use (config file `schedules.allowTools`; default none). */
  schedules: { allowTools: string[] };
  /** MCP servers (config file `mcpServers`), in file order. */
  mcpServers: McpServerConfig[];
  /** The agent's daily USD limits (config file `budgets`); they override the BUDGET_* defaults. */
  budgets: BudgetLimits;
  /**
   * Models a failing call goes to, in order (LLM_FALLBACK_MODELS for the default agent, config file
   * `fallbackModels`): each with its provider's credentials and base URL (CONTRACT §17).
   */
  fallbackModels: LlmConfig[];
  /**
   * Models a chat may choose with `/model` besides `llm` (LLM_MODELS for the default agent, config file `models`),
   * each with its provider's credentials and base URL (CONTRACT §20).
   */
  models: LlmConfig[];
  /** What a `/model` choice applies to: the session it was made in, or every session of its chat (MODEL_CHOICE, config file `modelChoice`). */
  modelChoice: ModelChoiceScope;
  /** The agent is offered `spawn_agent` (config file `subagents`, default on; CONTRACT §18). */
  subagents: boolean;
  /** Slack assistant threads: greeting and suggested prompts (config file `assistant`; unset: the built-in ones). */
  assistant?: AssistantSettings;
}

/** What a new Slack assistant thread opens with (CONTRACT §20); each unset field has a built-in default. */
export interface AssistantSettings {
  greeting?: string;
  /** At most 4; empty: no suggested prompts. */
  prompts?: Array<{ title: string; message: string }>;
}

/** Settings a channel, an account or a group may override (unset: inherited from the level above). */
export interface ChatOverrides {
  requireMention?: boolean;
  streaming?: StreamingMode;
  queueMode?: QueueMode;
  /** Appended to the assembled system prompt (channel, then account, then group). */
  systemPrompt?: string;
  /** Daily USD limits; each field overrides the agent's and the level above's. */
  budgets?: BudgetLimits;
}

/** One bot account of a platform. The first account of a platform is its default: it keeps the contract's webhook routes. */
export interface AccountConfig<Platform> {
  /** URL-safe name: non-default accounts are served at `/webhooks/<platform>/<name>…`. */
  name: string;
  /** The agent that answers on this account unless a binding says otherwise. */
  agentId: string;
  config: Platform;
  overrides: ChatOverrides;
}

export interface ChannelSettings {
  overrides: ChatOverrides;
  /** By chat id (Telegram group id, Slack channel id, Feishu chat id). */
  groups: Record<string, ChatOverrides>;
}

/** A routing rule: messages matching every field set here go to `agentId`; the most specific match wins. */
export interface AgentBinding {
  agentId: string;
  channel: PlatformName;
  /** Account name. */
  account?: string;
  chatId?: string;
  chatType?: 'dm' | 'group';
}

export interface AppConfig {
  /** The config file read, if any (for messages). */
  configFile: string | undefined;
  port: number;
  host: string;
  /** HTTP_*: request, header, keep-alive and idle timeouts; connections per address. */
  http: HttpLimits;
  /** TRUST_PROXY: whose X-Forwarded-For names the client (Fastify's `trustProxy`); false: the connection's address. */
  trustProxy: TrustProxy;
  role: Role;
  databaseUrl: string | undefined;
  /** DATABASE_MIGRATION_URL: a direct connection for migrations (session-level lock); unset: `databaseUrl`. */
  databaseMigrationUrl: string | undefined;
  /** DATABASE_POOLER: `transaction` when DATABASE_URL goes through a transaction pooler (no prepared statements, no session state). */
  databasePooler: DatabasePooler;
  redisUrl: string | undefined;
  /** REDIS_CLUSTER: REDIS_URL names a Redis Cluster (comma-separated seeds allowed). */
  redisCluster: boolean;
  /** QUEUE_SHARDS: sessions spread over this many queue shards (hash tags), 16 on a cluster by default. */
  queueShards: number;
  /** SESSION_CACHE_MB: the returning sessions' histories a worker process keeps (0: none; every turn reads its history). */
  sessionCacheBytes: number;
  dataDir: string;
  queuePrefix: string;
  workerConcurrency: number;
  groupMaxConcurrent: number;
  /** Global default; channels, accounts and groups may override it. */
  queueMode: QueueMode;
  inboundDebounceMs: number;
  shutdownGraceMs: number;
  /** A tool call waiting for approval counts as denied after this long (CONTRACT §11). */
  approvalTimeoutMs: number;
  /** MCP_STARTUP_WAIT_MS: within this long of a worker's start, turns wait for their MCP servers' first connection attempt (CONTRACT §11b). */
  mcpStartupWaitMs: number;
  /** How long a dead process's long polling / socket connection stays unclaimed at most (CONTRACT §16). */
  connectionLeaseMs: number;
  turnLeaseMs: number;
  /** A worker process whose heartbeat is silent this long is dead: its turns are taken over at once. */
  workerDeadAfterMs: number;
  /** TURN_FAILING_NOTICE_MS: a turn failing a retryable way tells its user within this long of its first failure. */
  turnFailingNoticeMs: number;
  /** TURN_RETRY_ATTEMPTS, TURN_RETRY_FIRST_DELAY_MS, TURN_RETRY_ROUNDS, TURN_RETRY_ROUND_DELAY_MS: how long a failing turn is retried (queue/queue-worker.ts). */
  turnRetry: { attempts: number; firstDelayMs: number; lateRounds: number; lateRoundDelayMs: number };
  /** The default agent's model (`agents[0].llm`). */
  llm: LlmConfig;
  /** LLM_FAILOVER_COOLDOWN_MS: how long a model that failed is skipped by every process. */
  failoverCooldownMs: number;
  /** SUBAGENT_MAX_DEPTH (children at that depth cannot spawn) and SUBAGENT_MAX_PARALLEL (children at once per model response). */
  subagents: { maxDepth: number; maxParallel: number };
  /** The default agent's identity prompt (`agents[0].systemPrompt`). */
  systemPrompt: string | undefined;
  /** The default agent's limit (`agents[0].maxIterations`). */
  maxIterations: number;
  historyTurns: number;
  /** COMPACTION_TIMEOUT_MS: the memory flush and the summary together; past it a turn trims instead. */
  compactionTimeoutMs: number;
  /** MEDIA_* and TRANSCRIBE_*: the attachment pipeline's limits and the transcription endpoint. */
  media: MediaConfig;
  /** Every agent; the first is the default (id `main` when no config file names agents). */
  agents: AgentConfig[];
  /** Each platform's accounts; the first is the default. */
  accounts: {
    telegram: AccountConfig<TelegramConfig>[];
    slack: AccountConfig<SlackConfig>[];
    feishu: AccountConfig<FeishuConfig>[];
  };
  channelSettings: Record<PlatformName, ChannelSettings>;
  bindings: AgentBinding[];
  /** The default account of each platform (`accounts.<platform>[0].config`). */
  telegram: TelegramConfig | undefined;
  slack: SlackConfig | undefined;
  feishu: FeishuConfig | undefined;
  publicUrl: string | undefined;
  admin: { user: string; password: string } | undefined;
  /** The dashboard shows queues and jobs but offers no actions (retry, clean, pause…). */
  adminReadOnly: boolean;
  /** ADMIN_SHOW_MESSAGE_TEXT: the queue view shows message text (otherwise ids, lengths and kinds only). */
  adminShowMessageText: boolean;
  /** SCHEDULE_MIN_INTERVAL_S and SCHEDULE_MAX_PER_CHAT (src/schedules). */
  schedules: { minIntervalSeconds: number; maxPerChat: number };
  /** EMBEDDING_MODEL (with OPENAI_API_KEY / OPENAI_BASE_URL): memories are also searched by embeddings (src/memory); unset: full text only. */
  embedding: { model: string; apiKey: string; baseUrl: string | undefined } | undefined;
  dmPolicy: DmPolicy;
  /** `channel:userId` entries always allowed to DM the bot (allowlist and pairing policies). */
  allowFrom: string[];
  /** Global default; channels, accounts and groups may override it. */
  groupRequireMention: boolean;
  /** `channel:chatId` entries; non-empty: groups not listed are ignored. */
  groupAllowlist: string[];
  /** Messages per user per minute that start turns; 0: no limit. */
  userRateLimit: number;
  inputGuard: InputGuardMode;
  /** TYPING_DELAY_MS: a turn's working indicator starts once it has run this long (0: at once). */
  typingDelayMs: number;
  traceVerbose: boolean;
  /** BUDGET_*_DAILY_USD: the default daily limits (agents, accounts and groups may override them). */
  budgets: BudgetLimits;
  /** LLM_PRICES: adds to or overrides the built-in price table (src/llm/pricing.ts). */
  llmPrices: Record<string, ModelPrice>;
  logLevel: string;
  logFormat: 'json' | 'pretty';
  /** OTEL_*: OpenTelemetry export (off unless an OTLP endpoint is set). */
  telemetry: TelemetrySettings;
}
