import { WebAPIRateLimitedError } from '@slack/web-api';

/** Longer waits are handed back to the caller (as a retryable error) rather than holding a turn. */
export const MAX_RATE_LIMIT_WAIT_MS = 30_000;
const ATTEMPTS = 3;

/** A recorded part's post: its retries must end by the deadline its intent recorded. */
export interface RetryBound {
  /** Epoch ms by which every attempt has landed or was given up (see deliverParts). */
  deadline: number;
  /** How long one attempt may take before the client aborts it. */
  attemptTimeoutMs: number;
}

/**
 * Runs a Web API call, waiting out Slack's Retry-After on a 429 and calling again (at most 3 attempts).
 * Safe for every method, chat.postMessage included: a 429 means Slack did nothing. With `bound`, a retry that
 * could still be on its way past the deadline is not made (the 429 is thrown): a takeover that waited the deadline
 * out and did not find the part sends it, and a late retry would double it.
 */
export async function withRateLimitRetry<T>(call: () => Promise<T>, bound?: RetryBound): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const waitMs = retryAfterOf(error);
      if (waitMs === undefined || waitMs > MAX_RATE_LIMIT_WAIT_MS || attempt >= ATTEMPTS) throw error;
      if (bound && Date.now() + waitMs + bound.attemptTimeoutMs > bound.deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** Milliseconds Slack asked to wait, when the error is a 429. */
export function retryAfterOf(error: unknown): number | undefined {
  return error instanceof WebAPIRateLimitedError ? error.retryAfter * 1000 : undefined;
}
