import type { Api } from 'grammy';
import type { Logger } from '../../src/observability/logger.js';

export interface BotCommandDescription {
  command: string;
  description: string;
}

/** Sets the command menu only when it differs: calling setMyCommands on every restart earns 429 lock-outs. */
export async function registerCommands(api: Api, commands: BotCommandDescription[], logger: Logger): Promise<void> {
  try {
    const current = await api.getMyCommands();
    const unchanged =
      current.length === commands.length &&
      current.every((entry, index) => entry.command === commands[index]?.command && entry.description === commands[index]?.description);
    if (unchanged) return;
    await api.setMyCommands(commands);
    logger.info({ commands: commands.map((entry) => entry.command) }, 'telegram command menu updated');
  } catch (error) {
    logger.error({ error: String(error) }, 'telegram command registration failed');
  }
}
