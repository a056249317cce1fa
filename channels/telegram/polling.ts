import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import type { Logger } from '../../src/observability/logger.js';
import { ALLOWED_UPDATES } from './allowed-updates.js';
import { toPlatformError } from './errors.js';
import type { UpdateHandler } from './update-handler.js';

const DELIVERY_ATTEMPTS = 5;
const FIRST_RETRY_DELAY_MS = 1000;
const POLL_TIMEOUT_SECONDS = 30;
const BATCH_LIMIT = 100;
const MAX_BACKOFF_MS = 30_000;

export interface Polling {
  start(handleUpdate: UpdateHandler): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Long polling that confirms an update only once it is handled (CONTRACT §16): `getUpdates` is called with
 * the offset past a batch only after every update of that batch was enqueued (or deliberately dropped), so a
 * process killed at any moment leaves the unconfirmed batch to the next poller, and the queue's dedupe keeps
 * a re-fetched update from being answered twice. Within a batch, chats are handled in parallel, each chat's
 * updates in order. (`@grammyjs/runner` fetches ahead of its handlers, confirming updates still in flight.)
 */
export function createPolling(bot: Bot, logger: Logger): Polling {
  let loop: Promise<void> | undefined;
  let controller: AbortController | undefined;

  /** Unlike a webhook, Telegram can't be asked to redeliver: a refused message is retried here. */
  async function deliver(handler: UpdateHandler, update: Update, signal: AbortSignal): Promise<void> {
    for (let attempt = 1; attempt <= DELIVERY_ATTEMPTS; attempt += 1) {
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
      // stopping: left unconfirmed, the next poller (this process or another) fetches it again
      if (signal.aborted) throw new Error('polling stopped before the update was handled');
      if (attempt === DELIVERY_ATTEMPTS) {
        logger.error({ updateId: update.update_id, reason }, 'telegram update dropped: the sink kept refusing it');
        return;
      }
      logger.warn({ updateId: update.update_id, reason, attempt }, 'telegram update refused by the sink, retrying');
      await new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1)));
    }
  }

  async function handleBatch(handler: UpdateHandler, updates: Update[], signal: AbortSignal): Promise<void> {
    const byChat = new Map<string, Update[]>();
    for (const update of updates) {
      const chat = chatOf(update);
      byChat.set(chat, [...(byChat.get(chat) ?? []), update]);
    }
    await Promise.all(
      [...byChat.values()].map(async (inOrder) => {
        for (const update of inOrder) await deliver(handler, update, signal);
      }),
    );
  }

  async function poll(handler: UpdateHandler, signal: AbortSignal): Promise<void> {
    let offset: number | undefined;
    let failures = 0;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await bot.api.getUpdates(
          { ...(offset !== undefined ? { offset } : {}), limit: BATCH_LIMIT, timeout: POLL_TIMEOUT_SECONDS, allowed_updates: [...ALLOWED_UPDATES] },
          // grammY types its signal with the abort-controller polyfill's type; the runtime takes the standard one
          signal as Parameters<Bot['api']['getUpdates']>[1],
        );
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        failures += 1;
        const delayMs = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(failures - 1, 5));
        logger.warn({ err: toPlatformError(error, 'getUpdates'), delayMs }, 'telegram getUpdates failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        continue;
      }
      if (updates.length === 0) continue;
      await handleBatch(handler, updates, signal);
      // the next getUpdates confirms this batch
      offset = updates.at(-1)!.update_id + 1;
    }
  }

  return {
    async start(handleUpdate) {
      if (loop) return;
      controller = new AbortController();
      await bot.api.deleteWebhook({ drop_pending_updates: false });
      const signal = controller.signal;
      loop = poll(handleUpdate, signal).catch((error: unknown) => {
        if (!signal.aborted) logger.error({ err: error }, 'telegram long polling stopped');
      });
      logger.info('telegram long polling started');
    },
    async stop() {
      controller?.abort();
      await loop;
      loop = undefined;
      controller = undefined;
      logger.info('telegram long polling stopped');
    },
  };
}

/** Updates of one chat keep their order; an update without a chat (or a malformed one) is its own lane. */
function chatOf(update: Update): string {
  const chat =
    (update as { message?: { chat?: { id?: unknown } } }).message?.chat?.id ??
    (update as { my_chat_member?: { chat?: { id?: unknown } } }).my_chat_member?.chat?.id ??
    (update as { callback_query?: { from?: { id?: unknown } } }).callback_query?.from?.id;
  return typeof chat === 'number' || typeof chat === 'string' ? `chat:${chat}` : `update:${update.update_id}`;
}
