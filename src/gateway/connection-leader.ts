import type { Logger } from '../observability/logger.js';
import type { LeaderLease } from '../redis/leader-lease.js';

export interface HeldConnection {
  stop(): Promise<void>;
}

/**
 * Runs a connection that only one process may hold at a time (Telegram long polling, Slack Socket Mode,
 * the Feishu long connection; CONTRACT §16): the process holding the lease runs it and renews the lease a
 * few times per TTL; the others try to take the lease at the same pace, so when the holder dies another
 * process opens the connection within one TTL and one interval. A holder that cannot renew (Redis away,
 * or the lease taken over after a long pause) closes its connection.
 */
export async function holdConnection(options: { lease: LeaderLease; name: string; open: () => Promise<void>; close: () => Promise<void>; logger: Logger }): Promise<HeldConnection> {
  const { lease, name, logger } = options;
  const intervalMs = Math.max(200, Math.floor(lease.ttlMs / 4));
  let leading = false;
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();

  const step = async (): Promise<void> => {
    if (stopped) return;
    if (leading) {
      if (await lease.renew()) return;
      leading = false;
      logger.warn({ connection: name }, 'lost the connection lease; closing the connection here');
      await options.close();
      return;
    }
    if (!(await lease.acquire())) return;
    leading = true;
    logger.info({ connection: name }, 'holding the connection lease; opening the connection');
    try {
      await options.open();
    } catch (error) {
      // another process may do better; this one tries again at its next turn
      leading = false;
      await lease.release().catch(() => undefined);
      throw error;
    }
  };
  const tick = () => {
    busy = busy.then(step).catch((error: unknown) => logger.warn({ err: error, connection: name }, 'connection lease step failed'));
  };
  // the first attempt at start-up: a configuration error stops the start, as it did without the lease
  await step();
  const timer = setInterval(tick, intervalMs);
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      if (!leading) return;
      leading = false;
      await options.close();
      await lease.release().catch(() => undefined);
    },
  };
}
