import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, runStatement, type Database } from '../../src/store/database.js';
import { createTestDatabase } from '../support/services.js';

/** postgres.js's query objects hold the stack captured at their making under this symbol when `debug` was given. */
const capturedStackOf = (query: object): unknown =>
  Object.getOwnPropertySymbols(query)
    .filter((symbol) => symbol.description === 'OriginError')
    .map((symbol) => (query as Record<symbol, unknown>)[symbol])[0];

describe("the database's statement hook (the statements counter)", () => {
  let database: Database;
  let drop: () => Promise<void>;
  const seen: string[] = [];

  beforeAll(async () => {
    const testDatabase = await createTestDatabase();
    drop = testDatabase.drop;
    database = await openDatabase({ databaseUrl: testDatabase.url, dataDir: mkdtempSync(join(tmpdir(), 'hook-')), onQuery: (statement) => seen.push(statement) });
  });

  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('sees every statement sent, and no query captures a stack trace for it', async () => {
    seen.length = 0;
    await runStatement(database.db, 'select $1::int + 1 as n', [41]);
    await runStatement(database.db, 'select $1::int + 1 as n', [1]);
    expect(seen.filter((statement) => statement === 'select $1::int + 1 as n')).toHaveLength(2);

    const client = (database.db as unknown as { $client: { unsafe(text: string): PromiseLike<unknown> & object } }).$client;
    const query = client.unsafe('select 2 as n');
    expect(capturedStackOf(query)).not.toBeInstanceOf(Error);
    await query;
    expect(seen.at(-1)).toBe('select 2 as n');
  });
});
