import type { Update } from 'grammy/types';
import type { InboundOutcome, WebhookRequest, WebhookResponse, WebhookRoute } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { headerOf, sameSecret } from '../shared/index.js';

export const TELEGRAM_WEBHOOK_PATH = '/webhooks/telegram';
const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

export type UpdateHandler = (update: Update) => Promise<InboundOutcome | undefined>;

/**
 * `POST /webhooks/telegram`: verify the secret, parse, hand the update to the same handler long polling
 * uses, answer. Telegram redelivers on any non-2xx, so a queue that refused the message answers 503.
 */
export function createWebhookRoute(options: { secret: string | undefined; handleUpdate: UpdateHandler; logger: Logger }): WebhookRoute {
  const { secret, handleUpdate, logger } = options;
  if (!secret) logger.error('TELEGRAM_WEBHOOK_SECRET is not set: every Telegram webhook call will be refused');
  return {
    method: 'POST',
    path: TELEGRAM_WEBHOOK_PATH,
    async handle(request: WebhookRequest): Promise<WebhookResponse> {
      if (!secret || !sameSecret(headerOf(request, SECRET_HEADER), secret)) {
        return { status: 401, body: { error: 'unauthorized' } };
      }
      let update: unknown;
      try {
        update = JSON.parse(request.rawBody);
      } catch {
        return { status: 400, body: { error: 'malformed JSON' } };
      }
      if (!isUpdate(update)) return { status: 400, body: { error: 'not a Telegram update' } };
      try {
        const outcome = await handleUpdate(update);
        if (outcome?.kind === 'rejected') {
          logger.warn({ updateId: update.update_id, reason: outcome.reason }, 'telegram update not accepted, asking Telegram to retry');
          return { status: 503, body: { error: 'unavailable' } };
        }
      } catch (error) {
        logger.error({ updateId: update.update_id, error }, 'telegram update handling failed');
        return { status: 503, body: { error: 'unavailable' } };
      }
      // an empty 200: a JSON body would be read by Telegram as a method call (webhook reply)
      return { status: 200 };
    },
  };
}

function isUpdate(value: unknown): value is Update {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Number.isInteger((value as { update_id?: unknown }).update_id);
}
