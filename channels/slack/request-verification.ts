// Bolt's verifier from its own module: Bolt's index would load all of Bolt (its receivers, Express) for one function
import { verifySlackRequest } from '@slack/bolt/dist/receivers/verify-request.js';
import type { WebhookRequest } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { headerOf } from '../shared/index.js';

/** Bolt refuses requests older than this; a timestamp as far in the future is refused here too. */
const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

/** Slack's v0 signature over the exact raw body (Bolt's `verifySlackRequest`), and a fresh timestamp. */
export function isSignedBySlack(request: WebhookRequest, signingSecret: string, logger: Logger): boolean {
  const signature = headerOf(request, 'x-slack-signature');
  const timestamp = headerOf(request, 'x-slack-request-timestamp');
  if (!signingSecret || !signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  const requestSeconds = Number(timestamp);
  if (requestSeconds - Date.now() / 1000 > MAX_CLOCK_SKEW_SECONDS) return false;
  try {
    verifySlackRequest({ signingSecret, body: request.rawBody, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': requestSeconds } });
    return true;
  } catch (error) {
    logger.debug({ reason: error instanceof Error ? error.message : String(error) }, 'slack request refused');
    return false;
  }
}
