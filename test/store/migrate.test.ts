import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase, pendingMigrations, type Database } from '../../src/store/index.js';
import { copyPgliteTemplate } from '../support/pglite-template.js';
import { BACKEND_KINDS, createBackend, type Backend, type BackendKind } from './store-backends.js';

const journal = JSON.parse(readFileSync(new URL('../../drizzle/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };

async function appliedCount(database: Database): Promise<number> {
  const result = await database.db.execute(sql`select count(*)::integer as "count" from drizzle.__drizzle_migrations`);
  const rows = Array.isArray(result) ? result : (result as { rows: Array<{ count: number }> }).rows;
  return rows[0].count;
}

async function tableNames(database: Database): Promise<string[]> {
  const result = await database.db.execute(
    sql`select table_name as "name" from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{ name: string }>;
  return rows.map((row) => row.name);
}

describe.each<BackendKind>(BACKEND_KINDS)('migrateDatabase (%s)', (kind) => {
  let backend: Backend | undefined;
  afterEach(async () => {
    await backend?.dispose();
    backend = undefined;
  });

  it('applies every migration, and applying again changes nothing', async () => {
    backend = await createBackend(kind, { initdb: true });
    const database = await backend.open();
    expect(journal.entries.length).toBeGreaterThan(0);
    // a new embedded database is created and migrated by a child process (src/store/pglite-initdb.ts)
    expect(await pendingMigrations(database)).toBe(kind === 'pglite' ? 0 : journal.entries.length);

    await migrateDatabase(database);
    await migrateDatabase(database);

    expect(await pendingMigrations(database)).toBe(0);
    expect(await appliedCount(database)).toBe(journal.entries.length);
    expect(await tableNames(database)).toEqual(['approved_senders', 'chat_models', 'memories', 'messages', 'pairing_requests', 'people', 'run_spans', 'runs', 'scheduled_tasks', 'sessions', 'summaries']);
    await database.ping();
    // PGlite's initdb is ~10 s of one core: on a loaded machine (the full suite on two cores) past the 30 s default
  }, 90_000);

  it('applies them once when several starts migrate at the same time', async () => {
    backend = await createBackend(kind);
    const handles = await Promise.all([backend.open(), backend.open(), backend.open()]);

    await Promise.all(handles.map((database) => migrateDatabase(database)));

    expect(await appliedCount(handles[0]!)).toBe(journal.entries.length);
    for (const database of handles) expect(await pendingMigrations(database)).toBe(0);
  });
});

describe('PGlite storage', () => {
  it('keeps the database under DATA_DIR/pglite across restarts', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'store-restart-'));
    // made and migrated as a first start leaves it (the template; a first start's initdb is the test above)
    await copyPgliteTemplate(dataDir);
    try {
      const first = await openDatabase({ dataDir });
      expect(first.kind).toBe('pglite');
      await migrateDatabase(first);
      await first.db.execute(sql`insert into people (channel, user_id, name) values ('telegram', 'restart-marker', 'kept across restarts')`);
      await first.close();
      expect(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);

      const second = await openDatabase({ dataDir });
      expect(await pendingMigrations(second)).toBe(0);
      const result = await second.db.execute(sql`select name from people where user_id = 'restart-marker'`);
      expect((result as unknown as { rows: Array<{ name: string }> }).rows).toEqual([{ name: 'kept across restarts' }]);
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
