export type ErrorCode =
  | 'config'
  | 'rate-limit'
  | 'overloaded'
  | 'context-length'
  | 'auth'
  | 'bad-request'
  | 'network'
  | 'timeout'
  | 'server'
  | 'aborted'
  | 'platform'
  | 'storage'
  /** A daily budget is used up: the model is not called (src/budgets). */
  | 'budget-exceeded'
  | 'too-large'
  | 'not-found'
  | 'internal';

/** The one base error: a code, a retry verdict, and the cause kept for the logs. */
export class BotError extends Error {
  readonly code: ErrorCode;
  readonly isRetryable: boolean;
  /** Milliseconds the remote side asked us to wait (Retry-After / retry_after). */
  readonly retryAfterMs: number | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; isRetryable?: boolean; retryAfterMs?: number } = {}) {
    super(message, { cause: options.cause });
    this.name = 'BotError';
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof BotError && error.code === 'aborted') ||
    (error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError'))
  );
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
