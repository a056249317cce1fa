import type { AppConfig, PlatformName } from '../src/config/app-config.js';
import type { Channel, PlatformCallRecorder } from '../src/core/channel.js';
import type { ChannelNotes, ChannelState, SharedHighMarks } from '../src/core/channel-state.js';
import { BotError } from '../src/core/errors.js';
import type { Logger } from '../src/observability/logger.js';
import { createTelegramChannel } from './telegram/index.js';
import { withTelegramRegistration } from './telegram/extra-account-registration.js';
import { TELEGRAM_WEBHOOK_PATH } from './telegram/webhook.js';

export { MISSING_SCOPES_HINT as SLACK_SCOPES_HINT } from './slack/app-permissions.js';

/** One running bot account: its channel and what the configuration calls it. */
export interface AccountChannel {
  channel: Channel;
  platform: PlatformName;
  accountName: string;
  /** The agent bound to the account (bindings may choose another per chat). */
  agentId: string;
  /** The platform's first account: served at the contract's routes (`/webhooks/telegram` …). */
  isDefault: boolean;
}

/**
 * Every account the configuration turns on. The first account of a platform keeps the contract's
 * webhook routes; the others are served under `/webhooks/<platform>/<accountName>` (Telegram:
 * `/webhooks/telegram/<name>`; Slack: `/webhooks/slack/<name>/events` …; Feishu: `/webhooks/feishu/<name>/events` …).
 */
export async function createAccountChannels(
  config: AppConfig,
  logger: Logger,
  /** What channels share across processes (Redis in the service). */
  state: ChannelState & ChannelNotes & SharedHighMarks,
  recorderFor: (platform: PlatformName) => PlatformCallRecorder | undefined = () => undefined,
  /** The chat commands a platform menu lists (Telegram's `setMyCommands`); none: no menu is registered. */
  commandNames?: Array<{ command: string; description: string }>,
): Promise<AccountChannel[]> {
  const counting = (platform: PlatformName) => {
    const onApiCall = recorderFor(platform);
    return onApiCall ? { onApiCall } : {};
  };
  const created: AccountChannel[] = [];
  const add = (platform: PlatformName, accountName: string, agentId: string, isDefault: boolean, channel: Channel) => {
    const twin = created.find((other) => other.platform === platform && other.channel.accountId === channel.accountId);
    if (twin) {
      throw new BotError(
        'config',
        `${platform} accounts "${twin.accountName}" and "${accountName}" are the same account (${channel.accountId}); each account must be a different bot${platform === 'slack' ? ' workspace' : ''}`,
      );
    }
    created.push({ channel: isDefault ? channel : atAccountRoutes(channel, platform, accountName), platform, accountName, agentId, isDefault });
  };

  for (const [index, account] of config.accounts.telegram.entries()) {
    const isDefault = index === 0;
    const channel = await createTelegramChannel({
      config: account.config,
      agentId: account.agentId,
      logger: logger.child({ account: account.name }),
      ...(commandNames ? { commandNames } : {}),
      ...counting('telegram'),
      ...(isDefault && config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      marks: state,
    });
    const registered =
      !isDefault && config.publicUrl && account.config.mode === 'webhook'
        ? withTelegramRegistration(channel, account.config, config.publicUrl, `${TELEGRAM_WEBHOOK_PATH}/${account.name}`, logger)
        : channel;
    add('telegram', account.name, account.agentId, isDefault, registered);
  }
  // Platform SDKs are loaded only when configured: Bolt and the Lark SDK cost tens of MB and seconds at start.
  const { createSlackChannel } = config.accounts.slack.length > 0 ? await import('./slack/index.js') : { createSlackChannel: undefined };
  for (const [index, account] of config.accounts.slack.entries()) {
    const channel = await createSlackChannel!({
      config: account.config,
      agentId: account.agentId,
      logger: logger.child({ account: account.name }),
      state,
      assistant: config.agents.find((agent) => agent.id === account.agentId)?.assistant,
      ...counting('slack'),
    });
    add('slack', account.name, account.agentId, index === 0, channel);
  }
  const { createFeishuChannel } = config.accounts.feishu.length > 0 ? await import('./feishu/index.js') : { createFeishuChannel: undefined };
  for (const [index, account] of config.accounts.feishu.entries()) {
    // the turn decides where to stream (DMs by default); the channel only says whether it can
    const channel = await createFeishuChannel!({
      config: account.config,
      agentId: account.agentId,
      logger: logger.child({ account: account.name }),
      state,
      liveReplies: 'all',
      ...counting('feishu'),
    });
    add('feishu', account.name, account.agentId, index === 0, channel);
  }
  return created;
}

/** Every channel the configuration turns on (each account's agent comes from the configuration). */
export async function createChannels(config: AppConfig, logger: Logger, state: ChannelState & ChannelNotes & SharedHighMarks): Promise<Channel[]> {
  return (await createAccountChannels(config, logger, state)).map((account) => account.channel);
}

/** `/webhooks/slack/events` → `/webhooks/slack/<name>/events`; `/webhooks/telegram` → `/webhooks/telegram/<name>`. */
function atAccountRoutes(channel: Channel, platform: PlatformName, accountName: string): Channel {
  const base = `/webhooks/${platform}`;
  return {
    ...channel,
    webhookRoutes: (sink) =>
      channel.webhookRoutes(sink).map((route) => ({
        ...route,
        path: route.path.startsWith(base) ? `${base}/${accountName}${route.path.slice(base.length)}` : route.path,
        handle: route.handle.bind(route),
      })),
  };
}
