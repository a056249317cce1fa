import { tmpdir } from 'node:os';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/index.js';
import { waitFor } from '../support/service-process.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../support/services.js';

/**
 * Issue 53 (the PostgreSQL-fault soak logged "unhandled promise rejection"): the service's backends are killed
 * (pg_terminate_backend, as a restart or an operator does) again and again while queries run and the pool opens
 * new connections. Queries may fail; nothing may reject unhandled. postgres.js's type-fetch query on each new
 * connection rejected unhandled when its connection was killed under it.
 */
let database: { url: string; drop: () => Promise<void> };
let store: Database;
const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });

beforeAll(async () => {
  database = await createTestDatabase();
  store = await openDatabase({ databaseUrl: database.url, dataDir: tmpdir() });
});

afterAll(async () => {
  await store?.close();
  await admin.end();
  await database?.drop();
});

describe('PostgreSQL backends terminated under load', () => {
  it('leaves no promise rejection unhandled, and the pool serves queries again afterwards', { timeout: 60_000 }, async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const name = new URL(database.url).pathname.slice(1);
      let stop = false;
      const load = (async () => {
        while (!stop) await Promise.all(Array.from({ length: 20 }, () => store.ping().catch(() => undefined)));
      })();
      for (let round = 0; round < 30; round += 1) {
        await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`);
        await new Promise((resolve) => setTimeout(resolve, 20 + (round % 7) * 10));
      }
      stop = true;
      // a query caught by a kill mid-connect may wait for its connection's timeout: not waited for here
      await Promise.race([load, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      // a connection killed by the last round may still take one more query before the pool notices it
      // (one caught mid-connect waits for its connect timeout: each try is given 3 s, the pool 20 s in all)
      const tryPing = () => Promise.race([store.ping().then(() => true, () => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000))]);
      await waitFor(tryPing, { what: 'the pool serving queries again', timeoutMs: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
