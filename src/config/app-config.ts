export type Role = 'all' | 'gateway' | 'worker';
export type QueueMode = 'collect' | 'followup' | 'interrupt';
export type InputGuardMode = 'off' | 'log' | 'warn' | 'block';

export interface LlmConfig {
  provider: 'openai' | 'anthropic';
  model: string;
  apiKey: string;
  baseUrl: string | undefined;
  stream: boolean;
  contextWindow: number;
  timeoutMs: number;
  maxRetries: number;
}

export interface TelegramConfig {
  token: string;
  apiRoot: string;
  mode: 'webhook' | 'polling';
  webhookSecret: string | undefined;
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

export interface AppConfig {
  port: number;
  host: string;
  role: Role;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  dataDir: string;
  queuePrefix: string;
  workerConcurrency: number;
  groupMaxConcurrent: number;
  queueMode: QueueMode;
  inboundDebounceMs: number;
  shutdownGraceMs: number;
  turnLeaseMs: number;
  llm: LlmConfig;
  systemPrompt: string | undefined;
  maxIterations: number;
  historyTurns: number;
  telegram: TelegramConfig | undefined;
  slack: SlackConfig | undefined;
  feishu: FeishuConfig | undefined;
  publicUrl: string | undefined;
  admin: { user: string; password: string } | undefined;
  dmPolicy: 'open' | 'allowlist' | 'disabled';
  allowFrom: string[];
  groupRequireMention: boolean;
  inputGuard: InputGuardMode;
  traceVerbose: boolean;
  logLevel: string;
  logFormat: 'json' | 'pretty';
}
