import type { WebhookRequest, WebhookResponse, WebhookRoute } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { headerOf, sameSecret } from '../shared/index.js';
import type { UpdateHandler } from './update-handler.js';

export const TELEGRAM_WEBHOOK_PATH = '/webhooks/telegram';
const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/**
 * `POST /webhooks/telegram`: verify the secret, parse, hand the update to the same handler long polling
 * uses, answer. Telegram redelivers on any non-2xx, so a queue that refused the message answers 503, and
 * an update with wrongly typed fields 400 (its redelivery would be just as wrong).
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
      const updateId = updateIdOf(update);
      try {
        const outcome = await handleUpdate(update);
        if (outcome?.kind === 'invalid') {
          logger.warn({ updateId, reason: outcome.reason }, 'telegram update refused: wrongly typed fields');
          return { status: 400, body: { error: `not a valid Telegram update: ${outcome.reason}` } };
        }
        if (outcome?.kind === 'rejected') {
          logger.warn({ updateId, reason: outcome.reason }, 'telegram update not accepted, asking Telegram to retry');
          return { status: 503, body: { error: 'unavailable' } };
        }
      } catch (error) {
        logger.error({ updateId, error }, 'telegram update handling failed');
        return { status: 503, body: { error: 'unavailable' } };
      }
      // an empty 200: a JSON body would be read by Telegram as a method call (webhook reply)
      return { status: 200 };
    },
  };
}

function updateIdOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { update_id?: unknown }).update_id : undefined;
}
