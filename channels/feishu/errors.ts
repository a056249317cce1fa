import { BotError } from '../../src/core/index.js';

/** Feishu's rate-limit answers: 99991400 from the gateway (HTTP 429, or 400 on older APIs), 230020 from IM's per-chat limit. */
const RATE_LIMIT_CODES = new Set([99991400, 230020]);

export interface FeishuApiErrorDetails {
  /** HTTP status; undefined when no answer arrived (network failure, timeout). */
  status?: number;
  /** Feishu's business code (`code` in the answer body). */
  code?: number;
  /** From `x-ogw-ratelimit-reset` (seconds until the limit window resets). */
  retryAfterMs?: number;
  /** The request never got an answer. */
  network?: boolean;
  cause?: unknown;
}

/** One failed Open API call, as our HTTP transport or the answer's `code` reported it. */
export class FeishuApiError extends Error {
  readonly status: number | undefined;
  readonly code: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly network: boolean;

  constructor(message: string, details: FeishuApiErrorDetails = {}) {
    super(message, { cause: details.cause });
    this.name = 'FeishuApiError';
    this.status = details.status;
    this.code = details.code;
    this.retryAfterMs = details.retryAfterMs;
    this.network = details.network ?? false;
  }

  get isRateLimit(): boolean {
    return this.status === 429 || (this.code !== undefined && RATE_LIMIT_CODES.has(this.code));
  }

  /** Worth repeating unchanged: no answer, or the server failed. */
  get isTransient(): boolean {
    return this.network || (this.status !== undefined && this.status >= 500);
  }
}

export function asFeishuApiError(error: unknown): FeishuApiError {
  if (error instanceof FeishuApiError) return error;
  return new FeishuApiError(error instanceof Error ? error.message : String(error), { cause: error });
}

/** What is left after the retries gave up: a platform error with a retry verdict for the caller. */
export function toPlatformError(error: unknown, method: string): BotError {
  if (error instanceof BotError) return error;
  const failure = asFeishuApiError(error);
  const detail = failure.code !== undefined ? `code ${failure.code}` : failure.status !== undefined ? `HTTP ${failure.status}` : 'no answer';
  return new BotError('platform', `Feishu ${method} failed: ${detail} (${failure.message})`, {
    cause: failure,
    isRetryable: failure.isRateLimit || failure.isTransient,
    ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
  });
}
