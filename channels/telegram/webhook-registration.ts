import { ALLOWED_UPDATES } from './allowed-updates.js';
import type { Api } from 'grammy';
import type { Logger } from '../../src/observability/logger.js';
import { TELEGRAM_WEBHOOK_PATH } from './webhook.js';

/**
 * Points Telegram at `${publicUrl}/webhooks/telegram` (or another account's `path`) with the secret it
 * must echo back in every call.
 */
export async function registerWebhook(
  api: Api,
  publicUrl: string,
  secret: string | undefined,
  logger: Logger,
  path: string = TELEGRAM_WEBHOOK_PATH,
): Promise<void> {
  const url = `${publicUrl.replace(/\/+$/, '')}${path}`;
  try {
    await api.setWebhook(url, { ...(secret ? { secret_token: secret } : {}), allowed_updates: [...ALLOWED_UPDATES] });
    logger.info({ url }, 'telegram webhook registered');
  } catch (error) {
    logger.error({ url, error: String(error) }, 'telegram webhook registration failed');
  }
}
