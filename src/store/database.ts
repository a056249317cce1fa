import type postgres from 'postgres';
import { openPostgres } from './postgres-database.js';
import type { Database, DatabasePooler, OpenDatabaseOptions, StoreDatabase } from './database-types.js';

export type { Database, DatabasePooler, OpenDatabaseOptions, StoreDatabase } from './database-types.js';

/** The options of `openDatabase` from the configuration (DATABASE_URL, DATABASE_MIGRATION_URL, DATABASE_POOLER, DATA_DIR). */
export function databaseOptionsOf(config: {
  databaseUrl: string | undefined;
  databaseMigrationUrl: string | undefined;
  databasePooler: DatabasePooler;
  dataDir: string;
}): OpenDatabaseOptions {
  return { databaseUrl: config.databaseUrl, migrationUrl: config.databaseMigrationUrl, pooler: config.databasePooler, dataDir: config.dataDir };
}

/**
 * Opens PostgreSQL (`databaseUrl`) or the embedded PGlite. With `pooler: 'none'` on PostgreSQL it refuses
 * (a `config` BotError naming DATABASE_POOLER) a URL that turns out to go through a transaction pooler.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres({ ...options, databaseUrl: options.databaseUrl });
  // loaded only without DATABASE_URL: a deployment on a real PostgreSQL never pays for the embedded one
  const { openPglite } = await import('./pglite-database.js');
  return openPglite(options.dataDir);
}

type PostgresClient = postgres.Sql & { options: { prepare?: boolean } };
type PgliteClient = { query<Row>(text: string, params: unknown[]): Promise<{ rows: Row[] }> };

/**
 * A statement of constant text with `$n` parameters, for the per-message path: no query building, and on a real
 * server a prepared statement per connection (parsed and planned once) unless the client was opened without
 * them (a transaction pooler). Rows as the server sent them, json columns parsed.
 */
export async function runStatement<Row>(db: StoreDatabase, text: string, params: unknown[]): Promise<Row[]> {
  const client = (db as unknown as { $client?: PostgresClient | PgliteClient }).$client;
  if (typeof client === 'function') {
    return (await client.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: client.options.prepare !== false })) as unknown as Row[];
  }
  if (client && typeof client.query === 'function') return (await client.query<Row>(text, params)).rows;
  throw new Error('runStatement: not a postgres.js or PGlite drizzle instance (a transaction has no client of its own)');
}

/** Rows of a raw `db.execute`: postgres-js returns an array, PGlite an object with `rows`. */
export function rowsOf<Row>(result: unknown): Row[] {
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}
