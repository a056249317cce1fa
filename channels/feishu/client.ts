import type { Client } from '@larksuiteoapi/node-sdk';
import type { FeishuConfig } from '../../src/config/app-config.js';
import { BotError } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { commonJsExports } from '../shared/index.js';
import { callFeishu } from './api-call.js';
import { FeishuApiError } from './errors.js';
import type { HttpInstance } from './http-instance.js';
import { createSdkLogger, SDK_LOGGER_LEVEL } from './sdk-logger.js';

/** Codes the token endpoint answers for a wrong app id or secret. */
const CREDENTIAL_CODES = new Set([10003, 10014, 99991663, 99991664]);
/** The SDK keeps a token until this long before it expires (its token manager's own margin). */
const TOKEN_MARGIN_MS = 3 * 60 * 1000;

type LarkSdk = typeof import('@larksuiteoapi/node-sdk');

/** The SDK module (CommonJS), loaded on first use. */
export async function loadLarkSdk(): Promise<LarkSdk> {
  return commonJsExports<LarkSdk>(await import('@larksuiteoapi/node-sdk'), 'Client');
}

/** The SDK client, loaded and built on first use. */
export type LazyClient = () => Promise<Client>;

export interface TenantToken {
  token: string;
  expiresAtMs: number;
}

export interface BotInfo {
  openId: string;
  name: string | undefined;
}

type TokenAnswer = { code?: number; msg?: string; tenant_access_token?: string; expire?: number };
/** `bot/v3/info` answers `bot` beside `code`, not under `data`. */
type BotInfoAnswer = { code?: number; msg?: string; bot?: { open_id?: string; app_name?: string } };

/**
 * The SDK client for FEISHU_DOMAIN (Feishu, Lark or a double). The SDK itself (some 20 MB once loaded) is imported
 * at the first call that needs it: a gateway, which only verifies deliveries, never loads it. Its token cache starts
 * with the token start-up fetched (`seed`), so it asks for one only when that one is about to expire.
 */
export function createFeishuClient(config: FeishuConfig, http: HttpInstance, logger: Logger, seed?: TenantToken): LazyClient {
  let client: Promise<Client> | undefined;
  const load = async (): Promise<Client> => {
    const { AppType, Client, CTenantAccessToken, DefaultCache } = await loadLarkSdk();
    // the default cache is one process-wide map keyed by app id: two clients for the same app id
    // (tests, or a Feishu and a Lark deployment of one app) would share each other's tokens
    const cache = new DefaultCache();
    if (seed !== undefined) await cache.set(CTenantAccessToken, seed.token, seed.expiresAtMs - TOKEN_MARGIN_MS, { namespace: config.appId });
    return new Client({
      appId: config.appId,
      appSecret: config.appSecret,
      appType: AppType.SelfBuild,
      domain: domainOf(config),
      httpInstance: http,
      logger: createSdkLogger(logger),
      loggerLevel: SDK_LOGGER_LEVEL,
      cache,
    });
  };
  return () => (client ??= load());
}

/**
 * Who the bot is (its open_id is how mentions of it are recognized), and the tenant token it took to ask: the
 * token request (`auth/v3/tenant_access_token/internal`, as the SDK's token manager makes it) and
 * `GET /open-apis/bot/v3/info` (which the SDK has no typed method for) go without the SDK. A refused app secret is
 * a configuration error.
 */
export async function fetchBotIdentity(config: FeishuConfig, http: HttpInstance, logger: Logger): Promise<{ bot: BotInfo; token: TenantToken }> {
  try {
    const requestedAt = Date.now();
    const granted = await callFeishu<TokenAnswer>(logger, { method: 'auth.tenantAccessToken', idempotent: true }, () =>
      http.post(`${domainOf(config)}/open-apis/auth/v3/tenant_access_token/internal`, { app_id: config.appId, app_secret: config.appSecret }),
    );
    // what the SDK's token manager took as refused credentials too
    if (!granted.tenant_access_token) throw refusedCredentials(new FeishuApiError('auth.tenantAccessToken: answered without a token', { status: 200 }));
    const token = { token: granted.tenant_access_token, expiresAtMs: requestedAt + (granted.expire ?? 0) * 1000 };
    const answer = await callFeishu<BotInfoAnswer>(logger, { method: 'bot.info', idempotent: true }, () =>
      http.get(`${domainOf(config)}/open-apis/bot/v3/info`, { headers: { Authorization: `Bearer ${token.token}` } }),
    );
    const openId = answer.bot?.open_id;
    if (!openId) throw new BotError('platform', 'Feishu bot/v3/info answered without the bot open_id (is the bot ability enabled?)');
    return { bot: { openId, name: answer.bot?.app_name }, token };
  } catch (error) {
    throw isCredentialFailure(error) ? refusedCredentials(error) : error;
  }
}

function domainOf(config: FeishuConfig): string {
  return config.domain.replace(/\/+$/, '');
}

function isCredentialFailure(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof FeishuApiError && cause.code !== undefined && CREDENTIAL_CODES.has(cause.code)) return true;
  }
  return false;
}

function refusedCredentials(cause: unknown): BotError {
  return new BotError('config', 'FEISHU_APP_ID / FEISHU_APP_SECRET were refused by Feishu (tenant access token denied)', { cause });
}
