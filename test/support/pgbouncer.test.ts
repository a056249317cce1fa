import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSessionPinning } from '../../src/store/session-pinning.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';
import { TEST_DATABASE_URL } from './services.js';

/**
 * The pooler the pooled tests run behind really is in transaction mode, and shows the hazard the service must
 * avoid there: a named prepared statement made in one transaction is gone in the next.
 */
let pooler: PgBouncer;
beforeAll(async () => {
  pooler = await startPgBouncer();
});
afterAll(async () => {
  await pooler?.stop();
});

/** 30 clients, each: a query, a transaction, a query; what failed (a hung query counts after 3 s). */
async function concurrentQueries(sql: postgres.Sql): Promise<string[]> {
  const failures: string[] = [];
  const withinThreeSeconds = <T>(work: Promise<T>) =>
    Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3_000))]);
  await Promise.all(
    Array.from({ length: 30 }, async (_, index) => {
      try {
        await withinThreeSeconds(sql`select ${index}::int as n`);
        await withinThreeSeconds(sql.begin(async (transaction) => transaction`select ${index}::int + 1 as m`));
        await withinThreeSeconds(sql`select ${index}::int as n`);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }),
  );
  return failures;
}

describe('test/support/pgbouncer', () => {
  it('starts PgBouncer in transaction mode: one client connection is served by several server sessions', async () => {
    const sql = postgres(pooler.urlFor(TEST_DATABASE_URL), { max: 4, prepare: false, onnotice: () => {} });
    try {
      expect(await probeSessionPinning(sql)).toBe('shared');
    } finally {
      await sql.end();
    }
  });

  it('named prepared statements break through it (errors, hung queries); unnamed ones (prepare: false) work', async () => {
    const unnamed = postgres(pooler.urlFor(TEST_DATABASE_URL), { max: 6, prepare: false, onnotice: () => {} });
    try {
      expect(await concurrentQueries(unnamed)).toEqual([]);
    } finally {
      await unnamed.end();
    }
    const prepared = postgres(pooler.urlFor(TEST_DATABASE_URL), { max: 6, prepare: true, onnotice: () => {} });
    try {
      expect((await concurrentQueries(prepared)).length).toBeGreaterThan(0);
    } finally {
      await prepared.end({ timeout: 1 });
    }
  });
});
