import { BotError, errorMessage } from '../core/errors.js';

type Provider = 'openai' | 'anthropic';

/** What both SDKs' `APIError` carries. */
interface ApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  readonly error: unknown;
}

type ErrorClass<T extends Error = Error> = abstract new (...args: never[]) => T;

/**
 * The error classes of the SDK that made the call (both SDKs export the same four). Passed in by the provider's
 * module, so that classifying an error never loads an SDK the deployment does not use.
 */
export interface SdkErrorClasses {
  APIError: ErrorClass<ApiError>;
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
}

export interface ErrorContext {
  provider: Provider;
  sdk: SdkErrorClasses;
  /** The caller's signal: an abort it caused is `aborted`, never a retryable failure. */
  signal?: AbortSignal | undefined;
}

const CONTEXT_LENGTH_PATTERN =
  /prompt is too long|exceed context limit|context[ _]length|context window|maximum context|too many tokens|reduce the length of the messages/i;

/** Maps anything an SDK call threw to a `BotError` with a code and a retry verdict. */
export function toBotError(error: unknown, context: ErrorContext): BotError {
  if (error instanceof BotError) return error;
  const { provider } = context;
  if (context.signal?.aborted) return new BotError('aborted', `${provider} request aborted`, { cause: error });
  if (error instanceof context.sdk.APIError) return fromApiError(error, provider, context.sdk);
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return new BotError('timeout', `${provider} request timed out`, { cause: error, isRetryable: true });
  }
  if (error instanceof SyntaxError) {
    return new BotError('server', `${provider} sent a malformed response: ${error.message}`, { cause: error, isRetryable: true });
  }
  if (error instanceof TypeError) {
    // undici: "fetch failed" before the response, "terminated" when the body breaks off.
    return new BotError('network', `${provider} connection failed: ${describe(error)}`, { cause: error, isRetryable: true });
  }
  return new BotError('internal', `${provider} call failed: ${errorMessage(error)}`, { cause: error });
}

function fromApiError(error: ApiError, provider: Provider, sdk: SdkErrorClasses): BotError {
  // (a helper, not `instanceof` inline: the subclasses share APIError's shape, which would narrow `error` away)
  if (isA(error, sdk.APIUserAbortError)) {
    return new BotError('aborted', `${provider} request aborted`, { cause: error });
  }
  if (isA(error, sdk.APIConnectionTimeoutError)) {
    return new BotError('timeout', `${provider} request timed out`, { cause: error, isRetryable: true });
  }
  if (isA(error, sdk.APIConnectionError)) {
    return new BotError('network', `${provider} connection failed: ${describe(error)}`, { cause: error, isRetryable: true });
  }

  const status = error.status;
  const type = errorType(error);
  const code = errorCode(error);
  const retryAfterMs = retryAfterMsOf(error.headers);
  const message = `${provider} ${status ?? 'stream'} ${type ?? ''}: ${apiMessage(error)}`.replace(/ {2,}/g, ' ');
  const options = (isRetryable: boolean) => ({ cause: error, isRetryable, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

  if (code === 'insufficient_quota' || type === 'billing_error') return new BotError('auth', message, options(false));
  if (status === 429 || type === 'rate_limit_error') return new BotError('rate-limit', message, options(true));
  if (status === 529 || type === 'overloaded_error') return new BotError('overloaded', message, options(true));
  if (isContextLength(error, code)) return new BotError('context-length', message, options(false));
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error') {
    return new BotError('auth', message, options(false));
  }
  if (status === 408 || type === 'timeout_error') return new BotError('timeout', message, options(true));
  if (status !== undefined && status >= 400 && status < 500) return new BotError('bad-request', message, options(false));
  if (type === 'invalid_request_error') return new BotError('bad-request', message, options(false));
  // 5xx, and error events in the middle of a stream (no status): the provider's side broke.
  return new BotError('server', message, options(true));
}

const isA = (error: unknown, errorClass: ErrorClass): boolean => error instanceof errorClass;

function isContextLength(error: ApiError, code: string | undefined): boolean {
  if (code === 'context_length_exceeded' || code === 'string_above_max_length') return true;
  if (error.status !== 400 && error.status !== 413) return false;
  return CONTEXT_LENGTH_PATTERN.test(apiMessage(error));
}

/** Milliseconds from `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterMsOf(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** `error.error` is the response body: `{ error: { type, code, message } }` or, in OpenAI's case, the inner object. */
function errorBody(error: ApiError): Record<string, unknown> {
  const body = error.error as Record<string, unknown> | undefined;
  const inner = body?.['error'];
  return (inner !== null && typeof inner === 'object' ? inner : (body ?? {})) as Record<string, unknown>;
}

function errorType(error: ApiError): string | undefined {
  const type = (error as { type?: unknown }).type ?? errorBody(error)['type'];
  return typeof type === 'string' ? type : undefined;
}

function errorCode(error: ApiError): string | undefined {
  const code = (error as { code?: unknown }).code ?? errorBody(error)['code'];
  return typeof code === 'string' ? code : undefined;
}

function apiMessage(error: ApiError): string {
  const message = errorBody(error)['message'];
  return typeof message === 'string' ? message : error.message;
}

function describe(error: Error): string {
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
