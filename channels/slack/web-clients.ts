import { WebClient, type RetryOptions } from '@slack/web-api';
import type { SlackConfig } from '../../src/config/app-config.js';
import type { PlatformCallRecorder } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { toSlackLogger } from './sdk-logger.js';

/** Calls that are safe to repeat (reads, edits, deletions, reactions, status): 5xx, network errors and timeouts get two more tries. */
const REPEATABLE_RETRIES: RetryOptions = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 4000, randomize: true };
/** chat.postMessage is not idempotent: a 5xx, a cut connection or a timeout may arrive after Slack posted. */
const NO_RETRIES: RetryOptions = { retries: 0 };
/**
 * Every Web API call is aborted after `requestMs` (the SDK's fetch timeout, read when the clients are made); a post's
 * intent records the deadline that follows from it (see deliverParts). An object so that a test can shorten it.
 */
export const SLACK_REQUEST_TIMEOUT = { requestMs: 15_000 };

export interface SlackClients {
  /** Everything but posting. */
  repeatable: WebClient;
  /** chat.postMessage and files.completeUploadExternal: the calls that create a message, never repeated on a failure. */
  posting: WebClient;
  /** Each call's timeout (ms), as the clients were made with it. */
  timeoutMs: number;
}

/**
 * Two clients because the SDK's retry policy is per client, not per method. Both reject 429s at once
 * (`rejectRateLimitedCalls: true`) instead of sleeping inside the SDK: `withRateLimitRetry` waits for
 * Retry-After within a bound, the same way for every method, and a 429 is the one failure after which
 * re-posting is safe (Slack did not post).
 */
export function createWebClients(config: SlackConfig, logger: Logger, record?: PlatformCallRecorder): SlackClients {
  const common = { slackApiUrl: config.apiUrl, logger: toSlackLogger(logger), timeout: SLACK_REQUEST_TIMEOUT.requestMs, rejectRateLimitedCalls: true };
  return {
    repeatable: counted(new WebClient(config.botToken, { ...common, retryConfig: REPEATABLE_RETRIES }), record),
    posting: counted(new WebClient(config.botToken, { ...common, retryConfig: NO_RETRIES }), record),
    timeoutMs: common.timeout,
  };
}

/** Every Web API method goes through `apiCall`: count each call (metrics), 429s apart. */
function counted(client: WebClient, record: PlatformCallRecorder | undefined): WebClient {
  if (!record) return client;
  const apiCall = client.apiCall.bind(client);
  client.apiCall = async (method, options) => {
    try {
      const result = await apiCall(method, options);
      record(method, 'ok');
      return result;
    } catch (error) {
      record(method, (error as { code?: string }).code === 'slack_webapi_rate_limited_error' ? 'rate_limited' : 'error');
      throw error;
    }
  };
  return client;
}
