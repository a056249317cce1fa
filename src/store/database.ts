import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.js';

/** What every repository takes: the postgres-js and the PGlite drizzle instances (and their transactions) both fit. */
export type StoreDatabase = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: StoreDatabase;
  kind: 'postgres' | 'pglite';
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Runs `work` while this process holds a PostgreSQL advisory lock, so other processes wait for it. */
  withAdvisoryLock<T>(lockId: number, work: () => Promise<T>): Promise<T>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…`; unset: embedded PGlite under `${dataDir}/pglite`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** Called with the text of every statement sent to a real server (BEGIN and COMMIT included): the benchmark counts them. */
  onQuery?: (statement: string) => void;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.onQuery) : openPglite(options.dataDir);
}

function openPostgres(databaseUrl: string, onQuery: ((statement: string) => void) | undefined): Database {
  const client = postgres(databaseUrl, {
    max: 10,
    onnotice: () => {},
    ...(onQuery ? { debug: (_connection: number, statement: string) => onQuery(statement) } : {}),
  });
  const db: StoreDatabase = drizzlePostgres({ client, schema });
  return {
    db,
    kind: 'postgres',
    ping: async () => {
      await client`select 1`;
    },
    close: () => client.end({ timeout: 5 }),
    withAdvisoryLock: async (lockId, work) => {
      // A session-level lock belongs to one connection, so it is taken and released on a reserved one
      // while `work` runs on the pool.
      const connection = await client.reserve();
      try {
        await connection`select pg_advisory_lock(${lockId}::bigint)`;
        try {
          return await work();
        } finally {
          await connection`select pg_advisory_unlock(${lockId}::bigint)`;
        }
      } finally {
        connection.release();
      }
    },
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  const directory = path.join(dataDir, 'pglite');
  await mkdir(directory, { recursive: true });
  // loaded only without DATABASE_URL: a deployment on a real PostgreSQL never pays for the embedded one
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
  const client = await PGlite.create(directory);
  const db: StoreDatabase = drizzlePglite({ client, schema });
  // PGlite is one connection inside this process: an in-process queue is the whole lock.
  let lockQueue: Promise<unknown> = Promise.resolve();
  return {
    db,
    kind: 'pglite',
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => client.close(),
    withAdvisoryLock: (_lockId, work) => {
      const result = lockQueue.then(work);
      lockQueue = result.catch(() => undefined);
      return result;
    },
  };
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
