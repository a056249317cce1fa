import { tmpdir } from 'node:os';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase, pendingMigrations, sessions, type Database } from '../../src/store/index.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { createTestDatabase } from '../support/services.js';

/** DATABASE_URL through PgBouncer in transaction mode: what the store does there, and what it refuses. */
let pooler: PgBouncer;
let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
const opened: Database[] = [];

beforeAll(async () => {
  [pooler, testDatabase] = await Promise.all([startPgBouncer(), createTestDatabase()]);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.close()));
});
afterAll(async () => {
  await pooler?.stop();
  await testDatabase?.drop();
});

const pooledUrl = () => pooler.urlFor(testDatabase.url);

async function open(options: { databaseUrl: string; migrationUrl?: string; pooler?: 'none' | 'transaction' }): Promise<Database> {
  const database = await openDatabase({ ...options, dataDir: tmpdir() });
  opened.push(database);
  return database;
}

async function rejectionOf(work: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await work;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a rejection');
}

describe('PostgreSQL behind a transaction pooler', () => {
  it('refuses DATABASE_POOLER=none when DATABASE_URL goes through a transaction pooler, naming the variable', async () => {
    const error = await rejectionOf(open({ databaseUrl: pooledUrl(), pooler: 'none' }));
    expect(error.code).toBe('config');
    expect(error.message).toMatch(/^DATABASE_POOLER: DATABASE_URL goes through a transaction pooler .* set DATABASE_POOLER=transaction and DATABASE_MIGRATION_URL/);
  });

  it('says whether named prepared statements may be used: not behind the pooler, nor with ?prepare=false', async () => {
    expect((await open({ databaseUrl: pooledUrl(), migrationUrl: testDatabase.url, pooler: 'transaction' })).preparedStatements).toBe(false);
    expect((await open({ databaseUrl: testDatabase.url })).preparedStatements).toBe(true);
    expect((await open({ databaseUrl: `${testDatabase.url}?prepare=false` })).preparedStatements).toBe(false);
  });

  it('migrates on the direct URL, then runs concurrent queries, transactions and even .prepare()d queries through the pooler', async () => {
    const database = await open({ databaseUrl: pooledUrl(), migrationUrl: testDatabase.url, pooler: 'transaction' });
    await migrateDatabase(database);
    expect(await pendingMigrations(database)).toBe(0);
    // the client runs with prepare: false, so a query drizzle prepares by name still goes out unnamed
    const byKey = database.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.key, sql.placeholder('key'))).prepare('session_by_key');
    const failures: unknown[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        try {
          const key = `agent:main:telegram:1:dm:${index}`;
          await database.db.transaction(async (transaction) => {
            await transaction.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`);
            await transaction.insert(sessions).values({ key, agentId: 'main', channel: 'telegram', accountId: '1', chatId: String(index), chatType: 'dm' });
          });
          expect(await byKey.execute({ key })).toHaveLength(1);
          expect(await byKey.execute({ key })).toHaveLength(1);
        } catch (error) {
          failures.push(error);
        }
      }),
    );
    expect(failures).toEqual([]);
    const [row] = await database.db.select({ n: sql<number>`count(*)::int` }).from(sessions);
    expect(row?.n).toBe(30);
  });

  it('refuses a DATABASE_MIGRATION_URL that goes through the pooler: the migration lock is session-level', async () => {
    const database = await open({ databaseUrl: pooledUrl(), migrationUrl: `${pooledUrl()}?application_name=migrations`, pooler: 'transaction' });
    const error = await rejectionOf(migrateDatabase(database));
    expect(error.code).toBe('config');
    expect(error.message).toMatch(/^DATABASE_MIGRATION_URL: goes through a transaction pooler/);
  });

  it('needs a migration URL with a transaction pooler', async () => {
    const error = await rejectionOf(open({ databaseUrl: pooledUrl(), pooler: 'transaction' }));
    expect(error.message).toMatch(/^DATABASE_MIGRATION_URL: required with DATABASE_POOLER=transaction/);
  });
});
