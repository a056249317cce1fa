import pino, { type DestinationStream, type Logger } from 'pino';
import { serializeError } from './error-serializer.js';
import { currentLogContext } from './log-context.js';

export type { Logger };

/** Paths pino blanks in every line: tokens, secrets, Authorization headers, webhook secrets, MCP env and header values. */
export const REDACTED_PATHS = [
  'token',
  'apiKey',
  'password',
  'secret',
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.apiKey',
  '*.password',
  '*.secret',
  '*.webhookSecret',
  '*.signingSecret',
  '*.appSecret',
  '*.encryptKey',
  'headers.authorization',
  'headers["x-telegram-bot-api-secret-token"]',
  'req.headers.authorization',
  'req.headers["x-telegram-bot-api-secret-token"]',
  // MCP servers: every env value of a stdio server and every header value of an HTTP server is a secret
  'env.*',
  '*.env.*',
  'headers.*',
  '*.headers.*',
];

export function createLogger(options: { level?: string; format?: 'json' | 'pretty'; destination?: DestinationStream } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const pretty = (options.format ?? process.env.LOG_FORMAT) === 'pretty';
  const settings = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // library errors carry statements, parameters and payloads (a failed flush: the whole turn)
    serializers: { err: serializeError },
    mixin: currentLogContext,
    ...(pretty && !options.destination ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

let root: Logger | undefined;

/** The process-wide root logger; modules take a child of it (`logger.child({ module: 'queue' })`). */
export function rootLogger(): Logger {
  root ??= createLogger();
  return root;
}

export function setRootLogger(logger: Logger): void {
  root = logger;
}

export function moduleLogger(module: string): Logger {
  return rootLogger().child({ module });
}
