import { startOwnPostgres } from '../test/support/own-postgres.js';
import { startPgBouncer, type PgBouncer } from '../test/support/pgbouncer.js';
import { createTestDatabase } from '../test/support/services.js';
import type { ModeFault } from './chaos.js';
import type { SoakSettings } from './settings.js';

/** The soak's PostgreSQL (the shared one, or one of its own to fault), the environment for it, and its faults. */
export interface SoakPostgresMode {
  env: Record<string, string>;
  /** host:port the service connects to (PgBouncer's when pooled), for the stall proxies. */
  address: { host: string; port: number };
  /** The ports of PostgreSQL (and PgBouncer). */
  ports: number[];
  faults: ModeFault[];
  stop(): Promise<void>;
}

/**
 * With `postgresFaults` the soak starts a PostgreSQL of its own (the machine's shared one on :5432 is never
 * restarted): it is restarted with a fast shutdown at 30 % and an immediate one (a crash) at 60 % of the run,
 * down 3 s each, and every backend of the service is terminated at 45 % and 80 %. With `pgbouncer` the service
 * goes through PgBouncer in transaction mode (migrations directly), whose server connections are the ones killed.
 */
export async function startPostgresMode(settings: SoakSettings): Promise<SoakPostgresMode> {
  const own = settings.postgresFaults ? await startOwnPostgres('soak') : undefined;
  const shared = own ? undefined : await createTestDatabase();
  const directUrl = own?.url ?? shared!.url;
  let bouncer: PgBouncer | undefined;
  if (settings.pgbouncer) bouncer = await startPgBouncer({ target: directUrl, poolSize: 10 });
  const url = bouncer ? bouncer.urlFor(directUrl) : directUrl;
  const faults: ModeFault[] = own
    ? [
        { what: 'postgres restart (fast)', fraction: 0.3, inject: async () => (await own.restart('fast', 3_000), 'postgres') },
        { what: 'postgres backends terminated', fraction: 0.45, inject: async () => `${await own.terminateBackends()} backends` },
        { what: 'postgres restart (immediate)', fraction: 0.6, inject: async () => (await own.restart('immediate', 3_000), 'postgres') },
        { what: 'postgres backends terminated', fraction: 0.8, inject: async () => `${await own.terminateBackends()} backends` },
      ]
    : [];
  const parsed = new URL(url);
  return {
    env: {
      DATABASE_URL: url,
      ...(bouncer ? { DATABASE_POOLER: 'transaction', DATABASE_MIGRATION_URL: directUrl } : {}),
    },
    address: { host: parsed.hostname, port: Number(parsed.port) },
    ports: [Number(new URL(directUrl).port || 5432), ...(bouncer ? [bouncer.port] : [])],
    faults,
    async stop() {
      await bouncer?.stop();
      await own?.stop();
      await shared?.drop();
    },
  };
}
