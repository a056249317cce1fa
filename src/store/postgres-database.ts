import { drizzle } from 'drizzle-orm/postgres-js';
import postgres, { type Sql } from 'postgres';
import { BotError } from '../core/errors.js';
import type { Database, OpenDatabaseOptions, StoreDatabase } from './database-types.js';
import * as schema from './schema/index.js';
import { reserveConnection } from './reserve-connection.js';
import { probeSessionPinning } from './session-pinning.js';

/** Connections to PostgreSQL per process. */
export const POOL_SIZE = 10;
const ignoreNotice = () => {};
/**
 * postgres.js asks every new connection for the server's array types (`fetch_types`), in a query whose failure it
 * leaves unhandled: a connection killed in between (a restart, pg_terminate_backend) logged an unhandled rejection
 * (the PostgreSQL-fault soak). No statement of ours binds or reads a PostgreSQL array
 * (lists travel as JSON), so the question is not asked. Without it a reserve must not open a connection: see
 * reserve-connection.ts.
 */
const CLIENT_OPTIONS = { onnotice: ignoreNotice, fetch_types: false } as const;

/**
 * PostgreSQL through postgres.js. `databaseUrl` carries every ordinary query (through a pooler, if any);
 * `migrationUrl` (a direct connection) is opened only for `withAdvisoryLock`, i.e. migrations.
 */
export async function openPostgres(options: OpenDatabaseOptions & { databaseUrl: string }): Promise<Database> {
  const pooler = options.pooler ?? 'none';
  const migrationUrl = options.migrationUrl ?? (pooler === 'none' ? options.databaseUrl : undefined);
  if (!migrationUrl) throw new BotError('config', 'DATABASE_MIGRATION_URL: required with DATABASE_POOLER=transaction (a direct URL for migrations)');
  // `?prepare=false` in the URL is postgres.js's own switch; an explicit option would override it, so it counts here
  const preparedStatements = pooler === 'none' && !/[?&]prepare=(false|disable)(&|$)/.test(options.databaseUrl);
  const onQuery = options.onQuery;
  const client = postgres(options.databaseUrl, { ...CLIENT_OPTIONS, max: POOL_SIZE, prepare: preparedStatements });
  // postgres.js calls `options.debug` for every statement it sends: the statement counter's hook. Given when the
  // client is made, `debug` also has every query capture a stack trace (`new Error()`, read only to decorate a
  // failed query's error): 5 µs a query at saturation, 30 µs between messages. Set on the options the
  // connections share afterwards, it is only called.
  if (onQuery) client.options.debug = (_connection: number, statement: string) => onQuery(statement);
  if (pooler === 'none') {
    try {
      await refuseTransactionPooler(client, 'DATABASE_URL');
    } catch (error) {
      await client.end({ timeout: 5 });
      throw error;
    }
  }
  const db: StoreDatabase = drizzle({ client, schema });
  return {
    db,
    kind: 'postgres',
    preparedStatements,
    ping: async () => {
      await client.unsafe('select 1');
    },
    close: () => client.end({ timeout: 5 }),
    withAdvisoryLock: async (lockId, work) => {
      const separate = migrationUrl !== options.databaseUrl;
      const direct = separate ? postgres(migrationUrl, { ...CLIENT_OPTIONS, max: 2 }) : client;
      try {
        if (separate) await refuseTransactionPooler(direct, 'DATABASE_MIGRATION_URL');
        // A session-level lock belongs to one server session, so it is taken and released on a reserved
        // connection while `work` runs on the rest of the direct pool.
        const connection = await reserveConnection(direct);
        try {
          await connection`select pg_advisory_lock(${lockId}::bigint)`;
          try {
            return await work(separate ? drizzle({ client: direct, schema }) : db);
          } finally {
            await connection`select pg_advisory_unlock(${lockId}::bigint)`;
          }
        } finally {
          connection.release();
        }
      } finally {
        if (separate) await direct.end({ timeout: 5 });
      }
    },
  };
}

/**
 * Session-level state (this process's migration lock, named prepared statements) would silently break
 * behind a transaction pooler; when the probe shows one, the setting or the URL is wrong.
 */
async function refuseTransactionPooler(client: Sql, variable: 'DATABASE_URL' | 'DATABASE_MIGRATION_URL'): Promise<void> {
  if ((await probeSessionPinning(client)) === 'shared') throw transactionPoolerError(variable);
}

export function transactionPoolerError(variable: 'DATABASE_URL' | 'DATABASE_MIGRATION_URL'): BotError {
  return new BotError(
    'config',
    variable === 'DATABASE_URL'
      ? 'DATABASE_POOLER: DATABASE_URL goes through a transaction pooler (one connection was served by two server sessions), but DATABASE_POOLER is none; set DATABASE_POOLER=transaction and DATABASE_MIGRATION_URL to a direct postgres:// URL'
      : 'DATABASE_MIGRATION_URL: goes through a transaction pooler (one connection was served by two server sessions); migrations hold a session-level lock, so give the direct postgres:// URL of the database, not the pooler',
  );
}
