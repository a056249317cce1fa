import { AppType, Client, DefaultCache } from '@larksuiteoapi/node-sdk';
import type { FeishuConfig } from '../../src/config/app-config.js';
import { BotError } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { FeishuApiError } from './errors.js';
import type { HttpInstance } from './http-instance.js';
import type { BotInfo, MessagesApi } from './messages-api.js';
import { createSdkLogger, SDK_LOGGER_LEVEL } from './sdk-logger.js';

/** Codes the token endpoint answers for a wrong app id or secret. */
const CREDENTIAL_CODES = new Set([10003, 10014, 99991663, 99991664]);

/**
 * The SDK client for FEISHU_DOMAIN (Feishu, Lark or a double). The SDK fetches the tenant access token
 * on first use and keeps it until three minutes before it expires.
 */
export function createFeishuClient(config: FeishuConfig, http: HttpInstance, logger: Logger): Client {
  return new Client({
    appId: config.appId,
    appSecret: config.appSecret,
    appType: AppType.SelfBuild,
    domain: config.domain.replace(/\/+$/, ''),
    httpInstance: http,
    logger: createSdkLogger(logger),
    loggerLevel: SDK_LOGGER_LEVEL,
    // the default cache is one process-wide map keyed by app id: two clients for the same app id
    // (tests, or a Feishu and a Lark deployment of one app) would share each other's tokens
    cache: new DefaultCache(),
  });
}

/** Who the bot is (its open_id is how mentions of it are recognized); a refused app secret is a configuration error. */
export async function fetchBotIdentity(api: MessagesApi): Promise<BotInfo> {
  try {
    return await api.botInfo();
  } catch (error) {
    if (isCredentialFailure(error)) {
      throw new BotError('config', 'FEISHU_APP_ID / FEISHU_APP_SECRET were refused by Feishu (tenant access token denied)', { cause: error });
    }
    throw error;
  }
}

function isCredentialFailure(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof FeishuApiError && cause.code !== undefined && CREDENTIAL_CODES.has(cause.code)) return true;
    // the SDK's own error when the token endpoint answers 200 without a token
    if (cause.message.startsWith('failed to get tenant_access_token')) return true;
  }
  return false;
}
