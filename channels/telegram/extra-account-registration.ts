import { Api } from 'grammy';
import type { AppConfig } from '../../src/config/app-config.js';
import type { Channel } from '../../src/core/channel.js';
import type { Logger } from '../../src/observability/logger.js';
import { registerWebhook } from './webhook-registration.js';
import { apiClientOptions } from './api-client-options.js';

/** A non-default Telegram account in webhook mode registers its own route with PUBLIC_URL at start. */
export function withTelegramRegistration(
  channel: Channel,
  account: AppConfig['accounts']['telegram'][number]['config'],
  publicUrl: string,
  path: string,
  logger: Logger,
): Channel {
  return {
    ...channel,
    async startInbound(sink) {
      await channel.startInbound(sink);
      const api = new Api(account.token, apiClientOptions(account.apiRoot.replace(/\/+$/, '')));
      await registerWebhook(api, publicUrl, account.webhookSecret, logger, path);
    },
  };
}
