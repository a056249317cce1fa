import { LogLevel, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from '../../src/observability/logger.js';

/**
 * The Slack SDKs' logger interface on top of our pino logger. Their debug lines carry request bodies
 * (users' text), so they go to `trace`.
 */
export function toSlackLogger(logger: Logger): SlackLogger {
  const line = (parts: unknown[]): string => parts.map((part) => (typeof part === 'string' ? part : String(part))).join(' ');
  return {
    debug: (...parts: unknown[]) => logger.trace(line(parts)),
    info: (...parts: unknown[]) => logger.info(line(parts)),
    warn: (...parts: unknown[]) => logger.warn(line(parts)),
    error: (...parts: unknown[]) => logger.error(line(parts)),
    setLevel: () => undefined,
    getLevel: () => (logger.isLevelEnabled('trace') ? LogLevel.DEBUG : LogLevel.INFO),
    setName: () => undefined,
  };
}
