import { httpFetch } from '../core/http-fetch.js';
import { retryAfterMsOf } from './provider-errors.js';

/** The longest wait the SDKs may sleep inside a turn before retrying. */
export const MAX_IN_PROCESS_RETRY_WAIT_MS = 60_000;

/**
 * A `fetch` for the SDKs that marks a response asking for a longer wait than `maxWaitMs` as
 * not to be retried (`x-should-retry: false`, which both SDKs obey). Left alone, the Anthropic
 * SDK sleeps whatever Retry-After says (up to days) and the OpenAI SDK retries a >60 s wait
 * after its short default back-off; either way a worker slot is wasted. Surfaced at once, the
 * error carries `retryAfterMs` and the queue can reschedule the turn instead.
 */
export function boundedRetryFetch(maxWaitMs = MAX_IN_PROCESS_RETRY_WAIT_MS, baseFetch: typeof fetch = httpFetch): typeof fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.ok) return response;
    const waitMs = retryAfterMsOf(response.headers);
    if (waitMs === undefined || waitMs <= maxWaitMs) return response;
    const headers = new Headers(response.headers);
    headers.set('x-should-retry', 'false');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
