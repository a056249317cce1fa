import type { Api, Transformer } from 'grammy';
import { HttpError } from 'grammy';
import type { PlatformCallRecorder } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';

/**
 * What an edit answers about the message it was aimed at, which callers expect and act on (a takeover's probe of a
 * thousand ids gets "not found" from nearly all of them): logged at debug, not as failures.
 */
const ANSWERS_NOT_FAILURES = /message to edit not found|message can't be edited|message is not modified/i;

/**
 * Logs every failed Bot API attempt (including the ones a retry later fixes) by method and
 * Telegram's description, and counts every attempt for the metrics; payloads are left out, they carry users' text.
 */
export function installApiLogging(api: Api, logger: Logger, record: PlatformCallRecorder = () => {}): void {
  const logFailures: Transformer = async (previous, method, payload, signal) => {
    try {
      const result = await previous(method, payload, signal);
      record(method, result.ok ? 'ok' : result.error_code === 429 ? 'rate_limited' : 'error');
      if (!result.ok) {
        const level = result.error_code === 400 && ANSWERS_NOT_FAILURES.test(result.description) ? 'debug' : 'warn';
        logger[level]({ method, errorCode: result.error_code, description: result.description, retryAfter: result.parameters?.retry_after }, 'telegram api call failed');
      }
      return result;
    } catch (error) {
      record(method, 'error');
      if (!signal?.aborted) {
        logger.warn({ method, error: error instanceof HttpError ? error.message : String(error) }, 'telegram api request failed');
      }
      throw error;
    }
  };
  api.config.use(logFailures);
}
