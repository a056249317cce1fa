import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema/index.js';

/** What every repository takes: the postgres-js and the PGlite drizzle instances (and their transactions) both fit. */
export type StoreDatabase = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * What sits between the service and PostgreSQL on DATABASE_URL: nothing (or a pooler in session mode, which
 * behaves the same), or a pooler in transaction mode (PgBouncer `pool_mode = transaction`, Supavisor's
 * transaction port, …), which hands each transaction whichever server connection is free.
 */
export type DatabasePooler = 'none' | 'transaction';

export interface Database {
  db: StoreDatabase;
  kind: 'postgres' | 'pglite';
  /**
   * Whether named (server-side) prepared statements may be used on `db`: false behind a transaction pooler,
   * which cannot carry them from one transaction's server connection to the next (the postgres.js client then
   * runs with `prepare: false`, so even a `.prepare()`d drizzle query goes out unnamed).
   */
  preparedStatements: boolean;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Runs `work` on the direct connection (DATABASE_MIGRATION_URL, else DATABASE_URL) while it holds a
   * session-level PostgreSQL advisory lock, so other processes wait for it. Session-level state needs one
   * server session, which only a direct connection guarantees; `work` gets a database on that connection.
   */
  withAdvisoryLock<T>(lockId: number, work: (direct: StoreDatabase) => Promise<T>): Promise<T>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…`; unset: embedded PGlite under `${dataDir}/pglite`. */
  databaseUrl?: string | undefined;
  /** A direct `postgres://…` of the same database for migrations and session-level locks; unset: `databaseUrl`. */
  migrationUrl?: string | undefined;
  /** Default `none`. With `transaction`, `migrationUrl` is required. */
  pooler?: DatabasePooler | undefined;
  dataDir: string;
  /** Called with the text of every statement sent to a real server (BEGIN and COMMIT included): the benchmark counts them. */
  onQuery?: (statement: string) => void;
}
