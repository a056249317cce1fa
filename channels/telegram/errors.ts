import { GrammyError, HttpError } from 'grammy';
import { BotError } from '../../src/core/index.js';

/** Telegram's answer when the HTML of a message does not parse (unknown tag, bad nesting, unclosed tag). */
export function isParseEntitiesError(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /can't parse entities/i.test(error.description);
}

/** What is left after the retry transformers gave up: a platform error with a retry verdict for the caller. */
export function toPlatformError(error: unknown, method: string): BotError {
  if (error instanceof BotError) return error;
  if (error instanceof GrammyError) {
    const retryAfter = error.parameters.retry_after;
    return new BotError('platform', `Telegram ${method} failed: ${error.error_code} ${error.description}`, {
      cause: error,
      isRetryable: error.error_code === 429 || error.error_code >= 500,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter * 1000 } : {}),
    });
  }
  if (error instanceof HttpError) {
    return new BotError('platform', `Telegram ${method} failed: network error`, { cause: error, isRetryable: true });
  }
  return new BotError('platform', `Telegram ${method} failed`, { cause: error, isRetryable: false });
}
