import { AsyncLocalStorage } from 'node:async_hooks';

export interface LogContext {
  runId: string;
  sessionKey: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Every log line written while `work` runs (in any module, channels included) carries the turn's ids. */
export function withLogContext<T>(context: LogContext, work: () => Promise<T>): Promise<T> {
  return storage.run(context, work);
}

/** pino mixin: the current turn's ids, or nothing outside a turn. */
export function currentLogContext(): Partial<LogContext> {
  return storage.getStore() ?? {};
}
