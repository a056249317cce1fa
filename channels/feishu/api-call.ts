import type { Logger } from '../../src/observability/logger.js';
import { asFeishuApiError, FeishuApiError, toPlatformError } from './errors.js';

const MAX_ATTEMPTS = 3;
const FIRST_BACKOFF_MS = 500;
/** A rate-limit window longer than this is not waited out here: the caller gets a retryable error with the wait. */
const MAX_RATE_LIMIT_WAIT_MS = 10_000;

export interface CallOptions {
  /** For logs and errors, e.g. `im.message.reply`. */
  method: string;
  /**
   * Safe to repeat after a 5xx or a lost answer (a reply carrying a `uuid`, a patch, a delete).
   * Rate-limit refusals are always repeated: Feishu did nothing with the request.
   */
  idempotent: boolean;
}

/** What every Open API answer carries besides its data. */
export interface ApiAnswer {
  code?: number | undefined;
  msg?: string | undefined;
}

/**
 * One Open API call through the SDK: a non-zero `code` is a failure, rate limits are waited out
 * (`x-ogw-ratelimit-reset`, else exponential backoff), transient failures are repeated only for
 * idempotent calls, and what is left becomes `BotError('platform', …, { isRetryable })`.
 */
export async function callFeishu<T extends ApiAnswer>(logger: Logger, options: CallOptions, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    let failure: FeishuApiError;
    try {
      const answer = await call();
      if (answer === undefined || answer === null) throw new FeishuApiError(`${options.method}: empty answer`);
      if (answer.code === undefined || answer.code === 0) return answer;
      failure = new FeishuApiError(`${options.method}: code ${answer.code} ${answer.msg ?? ''}`.trim(), { status: 200, code: answer.code });
    } catch (error) {
      failure = asFeishuApiError(error);
    }
    const delay = retryDelay(failure, attempt, options.idempotent);
    if (delay === undefined) {
      logger.warn({ method: options.method, status: failure.status, code: failure.code, attempt }, 'feishu api call failed');
      throw toPlatformError(failure, options.method);
    }
    logger.debug({ method: options.method, status: failure.status, code: failure.code, attempt, delayMs: delay }, 'feishu api call failed, retrying');
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function retryDelay(failure: FeishuApiError, attempt: number, idempotent: boolean): number | undefined {
  if (attempt >= MAX_ATTEMPTS) return undefined;
  const backoff = FIRST_BACKOFF_MS * 2 ** (attempt - 1);
  if (failure.isRateLimit) {
    const wait = failure.retryAfterMs ?? backoff * 2;
    return wait <= MAX_RATE_LIMIT_WAIT_MS ? wait : undefined;
  }
  return idempotent && failure.isTransient ? backoff : undefined;
}
