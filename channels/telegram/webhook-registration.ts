import type { Api } from 'grammy';
import type { Logger } from '../../src/observability/logger.js';
import { TELEGRAM_WEBHOOK_PATH } from './webhook.js';

/** Points Telegram at `${publicUrl}/webhooks/telegram` with the secret it must echo back in every call. */
export async function registerWebhook(api: Api, publicUrl: string, secret: string | undefined, logger: Logger): Promise<void> {
  const url = `${publicUrl.replace(/\/+$/, '')}${TELEGRAM_WEBHOOK_PATH}`;
  try {
    await api.setWebhook(url, { ...(secret ? { secret_token: secret } : {}), allowed_updates: ['message'] });
    logger.info({ url }, 'telegram webhook registered');
  } catch (error) {
    logger.error({ url, error: String(error) }, 'telegram webhook registration failed');
  }
}
