import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { BotError } from '../../src/core/index.js';

/** Slack's own "try again later" answers (HTTP 200 with ok: false). */
const TRANSIENT_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);
/** The request never left this machine, so nothing was posted. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

export interface ErrorContext {
  /** A non-idempotent call (chat.postMessage): a failure that may have happened after Slack acted is not retryable. */
  mayHaveActed?: boolean;
}

/** A failed Web API call → a platform error with a retry verdict; the message names the method and Slack's error, never the payload. */
export function toPlatformError(error: unknown, method: string, context: ErrorContext = {}): BotError {
  if (error instanceof BotError) return error;
  const unlessActed = !context.mayHaveActed;
  if (error instanceof WebAPIRateLimitedError) {
    return new BotError('platform', `Slack ${method} failed: rate limited (retry after ${error.retryAfter} s)`, {
      cause: error,
      isRetryable: true,
      retryAfterMs: error.retryAfter * 1000,
    });
  }
  if (error instanceof WebAPIPlatformError) {
    const code = error.data.error;
    return new BotError('platform', `Slack ${method} failed: ${code}`, { cause: error, isRetryable: TRANSIENT_ERRORS.has(code) && unlessActed });
  }
  if (error instanceof WebAPIHTTPError) {
    return new BotError('platform', `Slack ${method} failed: HTTP ${error.statusCode}`, { cause: error, isRetryable: error.statusCode >= 500 && unlessActed });
  }
  if (error instanceof WebAPIRequestError) {
    const sent = !NOT_SENT_CODES.has(networkCode(error.original) ?? '');
    return new BotError('platform', `Slack ${method} failed: ${error.original.name === 'TimeoutError' ? 'timeout' : 'network error'}`, {
      cause: error,
      isRetryable: !sent || unlessActed,
    });
  }
  return new BotError('platform', `Slack ${method} failed`, { cause: error, isRetryable: false });
}

/** Slack's error code (`not_allowed`, `already_reacted`…) when the call was answered with ok: false. */
export function slackErrorCode(error: unknown): string | undefined {
  const cause = error instanceof BotError ? error.cause : error;
  return cause instanceof WebAPIPlatformError ? cause.data.error : undefined;
}

/** fetch wraps the socket error: `TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })`. */
function networkCode(error: Error): string | undefined {
  for (let current: unknown = error; current instanceof Object; current = (current as { cause?: unknown }).cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
