import { Type, type Static } from '@sinclair/typebox';
import { ToolsConfigSchema } from '../agent/tools/tools-config.js';
import { McpServersSchema } from '../mcp/mcp-config.js';
import { BudgetLimitsSchema } from '../budgets/budget-limits.js';

/**
 * The config file (`bot.config.yaml`, or the file CONFIG_FILE names): agents, bot accounts per
 * platform, bindings, per-channel / per-account / per-group overrides, access control. Every object
 * refuses unknown keys, so a typo is reported with its path instead of being ignored.
 */
const Strict = { additionalProperties: false } as const;
const Optional = Type.Optional;
const Name = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' });
const Url = Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9+.-]*://' });
const Secret = Type.String({ minLength: 1 });
const PositiveInt = Type.Integer({ minimum: 1 });
/** YAML reads an unquoted `-1001234` as a number; both spellings are accepted. */
const ChatId = Type.Union([Type.String({ minLength: 1 }), Type.Integer()]);
const Platform = Type.Union([Type.Literal('telegram'), Type.Literal('slack'), Type.Literal('feishu')]);

const StreamingSchema = Type.Union([Type.Literal('off'), Type.Literal('dm'), Type.Literal('all')]);
const QueueModeSchema = Type.Union([Type.Literal('collect'), Type.Literal('followup'), Type.Literal('interrupt')]);

const overrideFields = {
  /** In groups, answer only when mentioned, replied to, or commanded. */
  requireMention: Optional(Type.Boolean()),
  /** Live replies (the answer edited in place while the model writes): `off`, `dm` or `all`. */
  streaming: Optional(StreamingSchema),
  /** Messages arriving during a turn: `collect`, `followup` or `interrupt`. */
  queueMode: Optional(QueueModeSchema),
  /** Appended to the agent's system prompt for chats at this level. */
  systemPrompt: Optional(Type.String()),
  /** Daily USD limits for chats at this level (CONTRACT §14). */
  budgets: Optional(BudgetLimitsSchema),
};

export const ChatOverridesSchema = Type.Object(overrideFields, Strict);

const accountFields = {
  name: Name,
  /** The agent answering on this account (default: the first agent). */
  agent: Optional(Name),
  ...overrideFields,
};

export const TelegramAccountSchema = Type.Object(
  {
    ...accountFields,
    token: Type.String({ pattern: '^[0-9]+:[A-Za-z0-9_-]+$' }),
    mode: Optional(Type.Union([Type.Literal('webhook'), Type.Literal('polling')])),
    webhookSecret: Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,256}$' })),
    apiRoot: Optional(Url),
  },
  Strict,
);

export const SlackAccountSchema = Type.Object(
  {
    ...accountFields,
    botToken: Type.String({ pattern: '^xox[a-z]-' }),
    signingSecret: Optional(Secret),
    appToken: Optional(Type.String({ pattern: '^xapp-' })),
    apiUrl: Optional(Url),
  },
  Strict,
);

export const FeishuAccountSchema = Type.Object(
  {
    ...accountFields,
    appId: Secret,
    appSecret: Secret,
    verificationToken: Optional(Secret),
    encryptKey: Optional(Secret),
    domain: Optional(Url),
    mode: Optional(Type.Union([Type.Literal('webhook'), Type.Literal('websocket')])),
  },
  Strict,
);

const channelSection = <Account extends ReturnType<typeof Type.Object>>(account: Account) =>
  Type.Object(
    {
      accounts: Optional(Type.Array(account)),
      ...overrideFields,
      /** Overrides for one group chat, by its chat id. */
      groups: Optional(Type.Record(Type.String(), ChatOverridesSchema)),
    },
    Strict,
  );

const ProviderSchema = Type.Union([Type.Literal('openai'), Type.Literal('anthropic')]);

export const FallbackModelSchema = Type.Object(
  {
    /** Default: the agent's provider. */
    provider: Optional(ProviderSchema),
    model: Type.String({ minLength: 1 }),
    /** Unset: OPENAI_API_KEY / ANTHROPIC_API_KEY by provider. */
    apiKey: Optional(Secret),
    /** Unset: OPENAI_BASE_URL / ANTHROPIC_BASE_URL by provider. */
    baseUrl: Optional(Url),
    /** Unset: the provider's default (128000 OpenAI, 200000 Anthropic). */
    contextWindow: Optional(PositiveInt),
  },
  Strict,
);

export const AgentSchema = Type.Object(
  {
    id: Name,
    provider: Optional(Type.Union([Type.Literal('openai'), Type.Literal('anthropic')])),
    model: Optional(Type.String({ minLength: 1 })),
    /** Usually `${SOME_ENV_VAR}`; unset: OPENAI_API_KEY / ANTHROPIC_API_KEY by provider. */
    apiKey: Optional(Secret),
    /** Unset: OPENAI_BASE_URL / ANTHROPIC_BASE_URL by provider. */
    baseUrl: Optional(Url),
    contextWindow: Optional(PositiveInt),
    /**
     * Where a call goes when this agent's model fails with a retryable error (CONTRACT §17), in order:
     * `[provider:]model` (that provider's key and base URL from OPENAI_/ANTHROPIC_*), or an object with its own.
     */
    fallbackModels: Optional(Type.Array(Type.Union([Type.String({ minLength: 1 }), FallbackModelSchema]))),
    /** `spawn_agent` (read-only child agents, CONTRACT §18): on by default; `off` or `false` turns it off. */
    subagents: Optional(Type.Union([Type.Boolean(), Type.Literal('on'), Type.Literal('off')])),
    /** The output cap of every request of this agent (LLM_MAX_OUTPUT_TOKENS for the default agent). */
    maxOutputTokens: Optional(PositiveInt),
    systemPrompt: Optional(Type.String()),
    maxIterations: Optional(PositiveInt),
    /** Daily USD limits for this agent's users, chats and the agent as a whole (CONTRACT §14). */
    budgets: Optional(BudgetLimitsSchema),
    tools: Optional(ToolsConfigSchema),
    /** MCP servers whose tools this agent gets, as `<server>__<tool>` (CONTRACT §11). */
    mcpServers: Optional(McpServersSchema),
    toolPolicy: Optional(
      Type.Object(
        {
          /** `true`, or the names of the admin tools this agent may run without approval (others wait for one). */
          allowAdminTools: Optional(Type.Union([Type.Boolean(), Type.Array(Type.String())])),
          /** Tools whose every call waits for a person's approval in the chat: names, `*`, `<server>__*`. */
          requireApproval: Optional(Type.Array(Type.String({ minLength: 1 }))),
        },
        Strict,
      ),
    ),
    /** Scheduled tasks' runs, where nobody watches (CONTRACT §12). */
    schedules: Optional(
      Type.Object(
        {
          /** Privileged tools (bash, CLI tools, write_file, send_file, tools needing approval) a firing may use: names, `*`, `<server>__*`. */
          allowTools: Optional(Type.Array(Type.String({ minLength: 1 }))),
        },
        Strict,
      ),
    ),
  },
  Strict,
);

export const BindingSchema = Type.Object(
  {
    agent: Name,
    channel: Platform,
    account: Optional(Name),
    chat: Optional(ChatId),
    chatType: Optional(Type.Union([Type.Literal('dm'), Type.Literal('group')])),
  },
  Strict,
);

export const AccessSchema = Type.Object(
  {
    dmPolicy: Optional(Type.Union([Type.Literal('open'), Type.Literal('allowlist'), Type.Literal('pairing'), Type.Literal('disabled')])),
    /** `channel:userId` */
    allowFrom: Optional(Type.Array(Type.String({ pattern: '^(telegram|slack|feishu):.+$' }))),
    /** `channel:chatId`; non-empty: other groups are ignored. */
    groupAllowlist: Optional(Type.Array(Type.String({ pattern: '^(telegram|slack|feishu):.+$' }))),
    /** Messages per user per minute; 0: no limit. */
    userRateLimit: Optional(Type.Integer({ minimum: 0 })),
  },
  Strict,
);

export const ConfigFileSchema = Type.Object(
  {
    agents: Optional(Type.Array(AgentSchema, { minItems: 1 })),
    channels: Optional(
      Type.Object(
        {
          telegram: Optional(channelSection(TelegramAccountSchema)),
          slack: Optional(channelSection(SlackAccountSchema)),
          feishu: Optional(channelSection(FeishuAccountSchema)),
        },
        Strict,
      ),
    ),
    bindings: Optional(Type.Array(BindingSchema)),
    access: Optional(AccessSchema),
  },
  Strict,
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type AgentEntry = Static<typeof AgentSchema>;
export type FallbackModelEntry = Static<typeof FallbackModelSchema>;
export type TelegramAccountEntry = Static<typeof TelegramAccountSchema>;
export type SlackAccountEntry = Static<typeof SlackAccountSchema>;
export type FeishuAccountEntry = Static<typeof FeishuAccountSchema>;
export type ChatOverridesEntry = Static<typeof ChatOverridesSchema>;
