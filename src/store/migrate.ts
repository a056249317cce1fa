import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { rowsOf, type Database } from './database.js';
import { migrationsFolder } from './migrations-folder.js';
import type * as schema from './schema/index.js';

/** Any constant works as long as every process of this service uses the same one. */
const MIGRATION_LOCK_ID = 72_410_001;
const MIGRATIONS_SCHEMA = 'drizzle';
const MIGRATIONS_TABLE = '__drizzle_migrations';

/**
 * Applies the pending migrations under `drizzle/`; processes starting together apply them once, one after the
 * other. They run on the direct connection (DATABASE_MIGRATION_URL, else DATABASE_URL): the lock that orders
 * them is session-level, which a transaction pooler cannot hold.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  const config = migrationConfig();
  await database.withAdvisoryLock(MIGRATION_LOCK_ID, async (direct) => {
    if (database.kind === 'postgres') {
      await migratePostgres(direct as PostgresJsDatabase<typeof schema>, config);
    } else {
      await migratePglite(direct as PgliteDatabase<typeof schema>, config);
    }
  });
}

/** Where drizzle's migrators find the migrations and record the applied ones. */
export function migrationConfig(): { migrationsFolder: string; migrationsSchema: string; migrationsTable: string } {
  return { migrationsFolder: migrationsFolder(), migrationsSchema: MIGRATIONS_SCHEMA, migrationsTable: MIGRATIONS_TABLE };
}

/** How many migrations under `drizzle/` the database has not applied yet. */
export async function pendingMigrations(database: Database): Promise<number> {
  const migrations = readMigrationFiles({ migrationsFolder: migrationsFolder() });
  const [table] = rowsOf<{ exists: boolean }>(
    await database.db.execute(sql`select to_regclass(${`${MIGRATIONS_SCHEMA}.${MIGRATIONS_TABLE}`}) is not null as "exists"`),
  );
  if (!table?.exists) return migrations.length;
  // Same rule as drizzle's migrator: everything newer than the last applied migration is pending.
  const [applied] = rowsOf<{ last: string | null }>(
    await database.db.execute(
      sql`select max(created_at)::text as "last" from ${sql.identifier(MIGRATIONS_SCHEMA)}.${sql.identifier(MIGRATIONS_TABLE)}`,
    ),
  );
  const last = applied?.last == null ? -Infinity : Number(applied.last);
  return migrations.filter((migration) => migration.folderMillis > last).length;
}
