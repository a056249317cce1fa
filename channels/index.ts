import { COMMAND_DESCRIPTIONS } from '../src/commands/index.js';
import type { AppConfig } from '../src/config/app-config.js';
import type { Channel } from '../src/core/channel.js';
import type { ChannelState } from '../src/core/channel-state.js';
import type { Logger } from '../src/observability/logger.js';
import { createFeishuChannel } from './feishu/index.js';
import { createSlackChannel } from './slack/index.js';
import { createTelegramChannel } from './telegram/index.js';

/** Every channel the configuration turns on. */
export async function createChannels(config: AppConfig, agentId: string, logger: Logger, state: ChannelState): Promise<Channel[]> {
  const channels: Channel[] = [];
  if (config.telegram) {
    channels.push(
      await createTelegramChannel({
        config: config.telegram,
        agentId,
        logger,
        commandNames: COMMAND_DESCRIPTIONS,
        ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      }),
    );
  }
  if (config.slack) channels.push(await createSlackChannel({ config: config.slack, agentId, logger, state }));
  // the turn decides where to stream (DMs by default); the channel only says whether it can
  if (config.feishu) channels.push(await createFeishuChannel({ config: config.feishu, agentId, logger, state, liveReplies: 'all' }));
  return channels;
}
