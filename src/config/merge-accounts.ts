import type {
  AccountConfig,
  AgentBinding,
  ChannelSettings,
  ChatOverrides,
  FeishuConfig,
  PlatformName,
  SlackConfig,
  TelegramConfig,
} from './app-config.js';
import { fileError, type LoadedConfigFile } from './config-file.js';
import type { Environment } from './environment-schema.js';
import type { ChatOverridesEntry, FeishuAccountEntry, SlackAccountEntry, TelegramAccountEntry } from './file-schema.js';

export const DEFAULT_ACCOUNT_NAME = 'default';
const TELEGRAM_API_ROOT = 'https://api.telegram.org';
const SLACK_API_URL = 'https://slack.com/api/';
const FEISHU_DOMAIN = 'https://open.feishu.cn';

export type Accounts = {
  telegram: AccountConfig<TelegramConfig>[];
  slack: AccountConfig<SlackConfig>[];
  feishu: AccountConfig<FeishuConfig>[];
};

function overridesOf(entry: ChatOverridesEntry): ChatOverrides {
  const { requireMention, streaming, queueMode, systemPrompt, budgets } = entry;
  return {
    ...(requireMention !== undefined ? { requireMention } : {}),
    ...(streaming !== undefined ? { streaming } : {}),
    ...(queueMode !== undefined ? { queueMode } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    ...(budgets !== undefined ? { budgets } : {}),
  };
}

/**
 * The accounts of one platform: the file's, the first of them overridden by the platform's
 * environment variables; or, with none in the file, one account `default` made of the variables.
 */
function mergePlatform<Entry extends { name: string; agent?: string | undefined }, Platform>(
  entries: Entry[] | undefined,
  fromEnvOnly: () => Platform | undefined,
  build: (entry: Entry, isDefault: boolean) => Platform,
  defaultAgentId: string,
): AccountConfig<Platform>[] {
  if (!entries || entries.length === 0) {
    const config = fromEnvOnly();
    return config ? [{ name: DEFAULT_ACCOUNT_NAME, agentId: defaultAgentId, config, overrides: {} }] : [];
  }
  return entries.map((entry, index) => ({
    name: entry.name,
    agentId: entry.agent ?? defaultAgentId,
    config: build(entry, index === 0),
    overrides: overridesOf(entry as ChatOverridesEntry),
  }));
}

export function mergeAccounts(env: Environment, file: LoadedConfigFile | undefined, defaultAgentId: string): Accounts {
  const channels = file?.content.channels;
  const telegram = mergePlatform<TelegramAccountEntry, TelegramConfig>(
    channels?.telegram?.accounts,
    () =>
      env.TELEGRAM_BOT_TOKEN
        ? {
            token: env.TELEGRAM_BOT_TOKEN,
            apiRoot: env.TELEGRAM_API_ROOT ?? TELEGRAM_API_ROOT,
            mode: env.TELEGRAM_MODE ?? 'polling',
            webhookSecret: env.TELEGRAM_WEBHOOK_SECRET,
            newConversationTopic: env.TELEGRAM_NEW_CONVERSATION_TOPIC ?? false,
          }
        : undefined,
    (entry, isDefault) => ({
      token: (isDefault ? env.TELEGRAM_BOT_TOKEN : undefined) ?? entry.token,
      apiRoot: (isDefault ? (env.TELEGRAM_API_ROOT ?? entry.apiRoot) : (entry.apiRoot ?? env.TELEGRAM_API_ROOT)) ?? TELEGRAM_API_ROOT,
      mode: (isDefault ? env.TELEGRAM_MODE : undefined) ?? entry.mode ?? 'polling',
      webhookSecret: isDefault ? (env.TELEGRAM_WEBHOOK_SECRET ?? entry.webhookSecret) : (entry.webhookSecret ?? env.TELEGRAM_WEBHOOK_SECRET),
      newConversationTopic: (isDefault ? env.TELEGRAM_NEW_CONVERSATION_TOPIC : undefined) ?? entry.newConversationTopic ?? env.TELEGRAM_NEW_CONVERSATION_TOPIC ?? false,
    }),
    defaultAgentId,
  );
  const slack = mergePlatform<SlackAccountEntry, SlackConfig>(
    channels?.slack?.accounts,
    () =>
      env.SLACK_BOT_TOKEN
        ? { botToken: env.SLACK_BOT_TOKEN, signingSecret: env.SLACK_SIGNING_SECRET ?? '', appToken: env.SLACK_APP_TOKEN, apiUrl: env.SLACK_API_URL ?? SLACK_API_URL }
        : undefined,
    (entry, isDefault) => ({
      botToken: (isDefault ? env.SLACK_BOT_TOKEN : undefined) ?? entry.botToken,
      signingSecret: (isDefault ? env.SLACK_SIGNING_SECRET : undefined) ?? entry.signingSecret ?? '',
      appToken: (isDefault ? env.SLACK_APP_TOKEN : undefined) ?? entry.appToken,
      apiUrl: (isDefault ? (env.SLACK_API_URL ?? entry.apiUrl) : (entry.apiUrl ?? env.SLACK_API_URL)) ?? SLACK_API_URL,
    }),
    defaultAgentId,
  );
  const feishu = mergePlatform<FeishuAccountEntry, FeishuConfig>(
    channels?.feishu?.accounts,
    () =>
      env.FEISHU_APP_ID
        ? {
            appId: env.FEISHU_APP_ID,
            appSecret: env.FEISHU_APP_SECRET ?? '',
            verificationToken: env.FEISHU_VERIFICATION_TOKEN,
            encryptKey: env.FEISHU_ENCRYPT_KEY,
            domain: (env.FEISHU_DOMAIN ?? FEISHU_DOMAIN).replace(/\/+$/, ''),
            mode: env.FEISHU_MODE ?? 'webhook',
          }
        : undefined,
    (entry, isDefault) => ({
      appId: (isDefault ? env.FEISHU_APP_ID : undefined) ?? entry.appId,
      appSecret: (isDefault ? env.FEISHU_APP_SECRET : undefined) ?? entry.appSecret,
      verificationToken: (isDefault ? env.FEISHU_VERIFICATION_TOKEN : undefined) ?? entry.verificationToken,
      encryptKey: (isDefault ? env.FEISHU_ENCRYPT_KEY : undefined) ?? entry.encryptKey,
      domain: ((isDefault ? (env.FEISHU_DOMAIN ?? entry.domain) : (entry.domain ?? env.FEISHU_DOMAIN)) ?? FEISHU_DOMAIN).replace(/\/+$/, ''),
      mode: (isDefault ? env.FEISHU_MODE : undefined) ?? entry.mode ?? 'webhook',
    }),
    defaultAgentId,
  );
  return { telegram, slack, feishu };
}

export function mergeChannelSettings(file: LoadedConfigFile | undefined): Record<PlatformName, ChannelSettings> {
  const settingsOf = (section: (ChatOverridesEntry & { groups?: Record<string, ChatOverridesEntry> }) | undefined): ChannelSettings => ({
    overrides: section ? overridesOf(section) : {},
    groups: Object.fromEntries(Object.entries(section?.groups ?? {}).map(([chatId, overrides]) => [chatId, overridesOf(overrides)])),
  });
  const channels = file?.content.channels;
  return { telegram: settingsOf(channels?.telegram), slack: settingsOf(channels?.slack), feishu: settingsOf(channels?.feishu) };
}

export function mergeBindings(file: LoadedConfigFile | undefined): AgentBinding[] {
  return (file?.content.bindings ?? []).map((binding) => ({
    agentId: binding.agent,
    channel: binding.channel,
    ...(binding.account !== undefined ? { account: binding.account } : {}),
    ...(binding.chat !== undefined ? { chatId: String(binding.chat) } : {}),
    ...(binding.chatType !== undefined ? { chatType: binding.chatType } : {}),
  }));
}

/** References between agents, accounts and bindings, and duplicates, each reported at the field to fix. */
export function checkReferences(file: LoadedConfigFile, agentIds: Set<string>): void {
  const { shown, content } = file;
  for (const platform of ['telegram', 'slack', 'feishu'] as const) {
    const accounts = content.channels?.[platform]?.accounts ?? [];
    const names = new Map<string, number>();
    const identities = new Map<string, number>();
    for (const [index, account] of accounts.entries()) {
      const at = `/channels/${platform}/accounts/${index}`;
      const earlier = names.get(account.name);
      if (earlier !== undefined) throw fileError(shown, `${at}/name`, `duplicate account name "${account.name}" (also ${platform} account ${earlier})`);
      names.set(account.name, index);
      if (account.agent !== undefined && !agentIds.has(account.agent)) throw fileError(shown, `${at}/agent`, `unknown agent "${account.agent}"`);
      const identity = 'token' in account ? account.token : 'botToken' in account ? account.botToken : account.appId;
      const same = identities.get(identity);
      if (same !== undefined) throw fileError(shown, at, `the same bot as account ${same}`);
      identities.set(identity, index);
    }
  }
  for (const [index, binding] of (content.bindings ?? []).entries()) {
    if (!agentIds.has(binding.agent)) throw fileError(shown, `/bindings/${index}/agent`, `unknown agent "${binding.agent}"`);
    if (binding.account !== undefined) {
      const accounts = content.channels?.[binding.channel]?.accounts ?? [];
      const known = accounts.length === 0 ? binding.account === DEFAULT_ACCOUNT_NAME : accounts.some((account) => account.name === binding.account);
      if (!known) throw fileError(shown, `/bindings/${index}/account`, `no ${binding.channel} account named "${binding.account}"`);
    }
  }
}
