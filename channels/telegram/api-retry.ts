import { autoRetry } from '@grammyjs/auto-retry';
import { HttpError, type Api, type Transformer } from 'grammy';

const NETWORK_ATTEMPTS = 3;
const NETWORK_FIRST_DELAY_MS = 500;

/**
 * Bounded retries for every Bot API call: `retry_after` (429) and 5xx through `@grammyjs/auto-retry`,
 * network failures through our own transformer, because auto-retry 2.0.2 retries an `HttpError`
 * forever (its network loop does not count towards `maxRetryAttempts`).
 */
export function installRetries(api: Api): void {
  api.config.use(retryNetworkErrors());
  // installed last, so it wraps the network retry
  api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60, rethrowInternalServerErrors: false, rethrowHttpErrors: true }));
}

function retryNetworkErrors(): Transformer {
  return async (previous, method, payload, signal) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await previous(method, payload, signal);
      } catch (error) {
        if (!(error instanceof HttpError) || signal?.aborted || attempt >= NETWORK_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, NETWORK_FIRST_DELAY_MS * 2 ** (attempt - 1)));
      }
    }
  };
}

/**
 * For the calls that create a message of a recorded delivery part (sendMessage, sendPhoto, sendDocument): only
 * 429s are waited out and repeated (Telegram did nothing). A 5xx or a lost connection may come after Telegram
 * posted the message, so it is not repeated here: it fails the attempt, and the turn's retry settles the part in
 * doubt first (sent-probe.ts) instead of posting it a second time.
 */
export function installRateLimitRetries(api: Api): void {
  api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60, rethrowInternalServerErrors: true, rethrowHttpErrors: true }));
}
