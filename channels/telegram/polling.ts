import { ALLOWED_UPDATES } from './allowed-updates.js';
import { run, sequentialize, type RunnerHandle } from '@grammyjs/runner';
import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import type { Logger } from '../../src/observability/logger.js';
import type { UpdateHandler } from './update-handler.js';

const DELIVERY_ATTEMPTS = 5;
const FIRST_RETRY_DELAY_MS = 1000;

export interface Polling {
  start(handleUpdate: UpdateHandler): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Long polling through `@grammyjs/runner`: updates are fetched concurrently but handled in order per
 * chat (`sequentialize`). Install once per bot; start/stop may repeat.
 */
export function createPolling(bot: Bot, logger: Logger): Polling {
  let handler: UpdateHandler | undefined;
  let runner: RunnerHandle | undefined;
  let stopping = false;
  const inFlight = new Set<Promise<void>>();

  // an id of the wrong type must not throw here: the handler refuses that update with a warning
  bot.use(sequentialize((context) => context.chat?.id?.toString()));
  bot.use(async (context) => {
    const delivery = deliver(context.update);
    inFlight.add(delivery);
    try {
      await delivery;
    } finally {
      inFlight.delete(delivery);
    }
  });
  bot.catch((error) => logger.error({ error: error.error, updateId: error.ctx.update.update_id }, 'telegram update handling failed'));

  /** Unlike a webhook, Telegram can't be asked to redeliver: the offset moves on, so a refused message is retried here. */
  async function deliver(update: Update): Promise<void> {
    for (let attempt = 1; attempt <= DELIVERY_ATTEMPTS && handler !== undefined; attempt += 1) {
      let reason: string;
      try {
        const outcome = await handler(update);
        if (outcome?.kind === 'invalid') {
          logger.warn({ updateId: update.update_id, reason: outcome.reason }, 'telegram update dropped: wrongly typed fields');
          return;
        }
        if (outcome?.kind !== 'rejected') return;
        reason = outcome.reason;
      } catch (error) {
        reason = String(error);
      }
      if (stopping || attempt === DELIVERY_ATTEMPTS) {
        logger.error({ updateId: update.update_id, reason }, 'telegram update dropped: the sink kept refusing it');
        return;
      }
      logger.warn({ updateId: update.update_id, reason, attempt }, 'telegram update refused by the sink, retrying');
      await new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1)));
    }
  }

  return {
    async start(handleUpdate) {
      if (runner?.isRunning()) return;
      handler = handleUpdate;
      stopping = false;
      await bot.api.deleteWebhook({ drop_pending_updates: false });
      runner = run(bot, { runner: { fetch: { allowed_updates: [...ALLOWED_UPDATES], timeout: 30 }, silent: true } });
      runner.task()?.catch((error: unknown) => logger.error({ error }, 'telegram long polling stopped'));
      logger.info('telegram long polling started');
    },
    async stop() {
      stopping = true;
      // a runner that already failed has been logged by start()
      await Promise.resolve(runner?.stop()).catch(() => undefined);
      runner = undefined;
      await Promise.allSettled([...inFlight]);
      logger.info('telegram long polling stopped');
    },
  };
}
