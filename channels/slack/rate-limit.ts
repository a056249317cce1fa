import { WebAPIRateLimitedError } from '@slack/web-api';

/** Longer waits are handed back to the caller (as a retryable error) rather than holding a turn. */
export const MAX_RATE_LIMIT_WAIT_MS = 30_000;
const ATTEMPTS = 3;

/**
 * Runs a Web API call, waiting out Slack's Retry-After on a 429 and calling again (at most 3 attempts).
 * Safe for every method, chat.postMessage included: a 429 means Slack did nothing.
 */
export async function withRateLimitRetry<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const waitMs = retryAfterOf(error);
      if (waitMs === undefined || waitMs > MAX_RATE_LIMIT_WAIT_MS || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** Milliseconds Slack asked to wait, when the error is a 429. */
export function retryAfterOf(error: unknown): number | undefined {
  return error instanceof WebAPIRateLimitedError ? error.retryAfter * 1000 : undefined;
}
