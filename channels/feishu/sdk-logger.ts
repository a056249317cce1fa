import type { Client, LoggerLevel } from '@larksuiteoapi/node-sdk';
import type { Logger } from '../../src/observability/logger.js';

type SdkLogger = NonNullable<ConstructorParameters<typeof Client>[0]['logger']>;

// LoggerLevel.info, spelt as its value: the SDK itself is loaded on first use (client.ts)
export const SDK_LOGGER_LEVEL = 3 as LoggerLevel;

/**
 * The SDK's log lines, routed into our pino logger. Only their strings and error messages are kept:
 * the SDK also logs request payloads (users' text) and, with its own transport, request configs.
 * Its info lines ("client ready", "event-dispatch is ready") are startup chatter, kept at debug.
 */
export function createSdkLogger(logger: Logger): SdkLogger {
  const write =
    (level: 'warn' | 'debug' | 'trace') =>
    (...parts: unknown[]): void => {
      const text = describe(parts);
      if (text !== '') logger[level]({ sdk: text }, 'lark sdk');
    };
  return { error: write('warn'), warn: write('warn'), info: write('debug'), debug: write('debug'), trace: write('trace') };
}

function describe(parts: unknown[]): string {
  return parts
    .flat(2)
    .map((part) => (typeof part === 'string' ? part : part instanceof Error ? part.message : ''))
    .filter((part) => part !== '')
    .join(' ');
}
