import { Api } from 'grammy';
import type { AppConfig } from '../../src/config/app-config.js';
import type { Channel } from '../../src/core/channel.js';
import type { Logger } from '../../src/observability/logger.js';
import { registerWebhook } from './webhook-registration.js';
import { httpFetch } from '../../src/core/http-fetch.js';

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
      const api = new Api(account.token, { apiRoot: account.apiRoot.replace(/\/+$/, ''), fetch: httpFetch });
      await registerWebhook(api, publicUrl, account.webhookSecret, logger, path);
    },
  };
}
