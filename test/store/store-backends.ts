import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { migrateDatabase, openDatabase, type Database } from '../../src/store/index.js';
import { createTestDatabase } from '../support/services.js';

export type BackendKind = Database['kind'];

export interface Backend {
  kind: BackendKind;
  /** Opens another handle on the same database (PGlite: the same handle; it is one connection in this process). */
  open(): Promise<Database>;
  dispose(): Promise<void>;
}

/** A fresh PostgreSQL database, or a fresh PGlite data directory. */
export async function createBackend(kind: BackendKind): Promise<Backend> {
  if (kind === 'postgres') {
    const testDatabase = await createTestDatabase();
    const opened: Database[] = [];
    return {
      kind,
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

/** Runs the same tests against real PostgreSQL and PGlite, each with a migrated, fresh database. */
export function describeEachBackend(title: string, body: (database: () => Database) => void): void {
  describe.each<BackendKind>(['postgres', 'pglite'])(`${title} (%s)`, (kind) => {
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
