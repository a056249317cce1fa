import postgres, { type Sql } from 'postgres';
import { BotError } from '../core/errors.js';
import type { OpenDatabaseOptions } from './database.js';
import { transactionPoolerError } from './postgres-database.js';
import { probeSessionPinning } from './session-pinning.js';

interface ServerIdentity {
  database: string;
  started: string;
  standby: boolean;
}

/**
 * For `doctor`'s postgres line: what DATABASE_URL and DATABASE_MIGRATION_URL turn out to be, as `; …` clauses
 * ('' when there is nothing to add). Throws, naming the variable, when the migration connection cannot carry
 * migrations: through a transaction pooler, another server or database, or a read-only standby. (A DATABASE_URL
 * through a transaction pooler with DATABASE_POOLER=none is refused earlier, by `openDatabase`.)
 */
export async function describeConnections(options: OpenDatabaseOptions): Promise<string> {
  if (!options.databaseUrl) return '';
  const clauses: string[] = [];
  const pooled = postgres(options.databaseUrl, { max: 2, prepare: false, fetch_types: false, onnotice: () => {} });
  try {
    if (options.pooler === 'transaction') {
      const pinning = await probeSessionPinning(pooled);
      clauses.push(
        pinning === 'pinned'
          ? 'DATABASE_POOLER=transaction, but DATABASE_URL kept one server session across transactions (a direct connection or a session pooler?): prepared statements are off for nothing'
          : `${pinning === 'shared' ? 'through a transaction pooler' : 'DATABASE_POOLER=transaction'} (no prepared statements, no session state)`,
      );
    }
    if (options.migrationUrl && options.migrationUrl !== options.databaseUrl) {
      const direct = postgres(options.migrationUrl, { max: 2, prepare: false, fetch_types: false, onnotice: () => {} });
      try {
        if ((await probeSessionPinning(direct)) === 'shared') throw transactionPoolerError('DATABASE_MIGRATION_URL');
        const [target, migrations] = await Promise.all([identityOf(pooled), identityOf(direct)]);
        if (migrations.standby) throw new BotError('config', 'DATABASE_MIGRATION_URL: reaches a read-only standby; give the primary of the database DATABASE_URL uses');
        if (migrations.database !== target.database || migrations.started !== target.started) {
          throw new BotError(
            'config',
            `DATABASE_MIGRATION_URL: reaches database "${migrations.database}" on a server started ${migrations.started}, but DATABASE_URL reaches "${target.database}" on a server started ${target.started}; both must name the same database`,
          );
        }
        clauses.push('migrations through DATABASE_MIGRATION_URL (direct, same database)');
      } finally {
        await direct.end({ timeout: 5 });
      }
    }
  } finally {
    await pooled.end({ timeout: 5 });
  }
  return clauses.map((clause) => `; ${clause}`).join('');
}

/** The database name and the server's start time (one server instance), without any privilege beyond connecting. */
async function identityOf(client: Sql): Promise<ServerIdentity> {
  const [row] = await client.unsafe<ServerIdentity[]>(
    'select current_database() as database, pg_postmaster_start_time()::text as started, pg_is_in_recovery() as standby',
  );
  return row!;
}
