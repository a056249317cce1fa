import { COMMAND_DESCRIPTIONS } from '../src/commands/index.js';
import type { AppConfig } from '../src/config/app-config.js';
import type { Channel } from '../src/core/channel.js';
import type { Logger } from '../src/observability/logger.js';
import { createTelegramChannel } from './telegram/index.js';

/** Every channel the configuration turns on. */
export async function createChannels(config: AppConfig, agentId: string, logger: Logger): Promise<Channel[]> {
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
  return channels;
}
