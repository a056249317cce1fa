import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { migrateDatabase, openDatabase, type Database } from '../../src/store/index.js';
import { startPgBouncer } from '../support/pgbouncer.js';
import { copyPgliteTemplate } from '../support/pglite-template.js';
import { createTestDatabase } from '../support/services.js';

/** `pooled`: PostgreSQL through PgBouncer in transaction mode (DATABASE_POOLER=transaction), migrations on the direct URL. */
export type BackendKind = Database['kind'] | 'pooled';
export const BACKEND_KINDS: BackendKind[] = ['postgres', 'pglite', 'pooled'];

export interface Backend {
  kind: BackendKind;
  /** The database's own URL, for a second client of a test's own (`postgres` only). */
  url?: string;
  /** Opens another handle on the same database (PGlite: the same handle; it is one connection in this process). */
  open(): Promise<Database>;
  dispose(): Promise<void>;
}

/**
 * A fresh PostgreSQL database (directly or through a transaction pooler), or a fresh PGlite data directory: a copy
 * of the migrated template test/support/global-setup.ts made with the service's own initdb (what a new data
 * directory holds after its first start), or with `initdb: true` an empty directory that the first open
 * initializes in its child process (~10 s of CPU).
 */
export async function createBackend(kind: BackendKind, options: { initdb?: boolean } = {}): Promise<Backend> {
  if (kind === 'pooled') {
    const [testDatabase, pooler] = await Promise.all([createTestDatabase(), startPgBouncer()]);
    const opened: Database[] = [];
    return {
      kind,
      open: async () => {
        const database = await openDatabase({ databaseUrl: pooler.urlFor(testDatabase.url), migrationUrl: testDatabase.url, pooler: 'transaction', dataDir: tmpdir() });
        opened.push(database);
        return database;
      },
      dispose: async () => {
        await Promise.all(opened.map((database) => database.close()));
        await pooler.stop();
        await testDatabase.drop();
      },
    };
  }
  if (kind === 'postgres') {
    const testDatabase = await createTestDatabase();
    const opened: Database[] = [];
    return {
      kind,
      url: testDatabase.url,
      open: async () => {
        const database = await openDatabase({ databaseUrl: testDatabase.url, dataDir: tmpdir() });
        opened.push(database);
        return database;
      },
      dispose: async () => {
        await Promise.all(opened.map((database) => database.close()));
        await testDatabase.drop();
      },
    };
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'store-test-'));
  if (!options.initdb) await copyPgliteTemplate(dataDir);
  let database: Promise<Database> | undefined;
  return {
    kind,
    open: () => (database ??= openDatabase({ dataDir })),
    dispose: async () => {
      await (await database)?.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs the same tests against real PostgreSQL (direct and through PgBouncer) and PGlite, each with a migrated, fresh database. */
export function describeEachBackend(title: string, body: (database: () => Database) => void): void {
  describe.each<BackendKind>(BACKEND_KINDS)(`${title} (%s)`, (kind) => {
    let backend: Backend;
    let database: Database;
    beforeAll(async () => {
      backend = await createBackend(kind);
      database = await backend.open();
      await migrateDatabase(database);
    });
    afterAll(async () => {
      await backend?.dispose();
    });
    body(() => database);
  });
}
