import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryService, promptEntryBytes } from '../../src/memory/memory-service.js';
import { createLogger } from '../../src/observability/logger.js';
import { migrateDatabase, openDatabase, type Database } from '../../src/store/index.js';
import { createTestDatabase } from '../support/services.js';

const logger = createLogger({ level: 'silent' });

describe("MemoryService's prompt memories: a returning chat reads nothing", () => {
  let database: Database;
  let drop: () => Promise<void>;
  const statements: string[] = [];
  const memoryReads = () => statements.filter((statement) => /\bfrom memories\b/.test(statement)).length;

  beforeAll(async () => {
    const testDatabase = await createTestDatabase();
    drop = testDatabase.drop;
    database = await openDatabase({ databaseUrl: testDatabase.url, dataDir: tmpdir(), onQuery: (statement) => statements.push(statement) });
    await migrateDatabase(database);
  });

  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('keeps the scopes used lately and drops the least recently used one, not the first one read', async () => {
    // room for three entries: the scope with its one memory and two without
    const tea = { id: 1, text: 'Prefers tea over coffee', createdAt: new Date() };
    const memory = new MemoryService(database.db, logger, undefined, promptEntryBytes('dm:telegram:1', [tea]) + 2 * promptEntryBytes('dm:telegram:2', []));
    await memory.remember('dm:telegram:1', 'Prefers tea over coffee');
    const lines = async (scope: string) => (await memory.promptLines(scope, 'hello')).map((line) => line.replace(/^\[\d+\] /, ''));

    const before = memoryReads();
    expect(await lines('dm:telegram:1')).toEqual(['Prefers tea over coffee']);
    expect(await lines('dm:telegram:2')).toEqual([]);
    expect(await lines('dm:telegram:3')).toEqual([]);
    expect(memoryReads() - before).toBe(3);

    // the first scope read is in use again: the next new scope drops the second, the least recently used
    expect(await lines('dm:telegram:1')).toEqual(['Prefers tea over coffee']);
    expect(await lines('dm:telegram:4')).toEqual([]);
    expect(memoryReads() - before).toBe(4);
    expect(await lines('dm:telegram:1')).toEqual(['Prefers tea over coffee']);
    expect(await lines('dm:telegram:3')).toEqual([]);
    expect(await lines('dm:telegram:4')).toEqual([]);
    expect(memoryReads() - before).toBe(4);
    expect(await lines('dm:telegram:2')).toEqual([]);
    expect(memoryReads() - before).toBe(5);
  });

  it('is bounded by size: a scope with memories takes the room of several without', async () => {
    const memory = new MemoryService(database.db, logger, undefined, 3 * promptEntryBytes('dm:telegram:20', []));
    const reads = async (scope: string) => {
      const before = memoryReads();
      await memory.promptLines(scope, 'hello');
      return memoryReads() - before;
    };
    for (const scope of ['dm:telegram:20', 'dm:telegram:21', 'dm:telegram:22']) expect(await reads(scope)).toBe(1);
    for (const scope of ['dm:telegram:20', 'dm:telegram:21', 'dm:telegram:22']) expect(await reads(scope)).toBe(0);
    await memory.remember('dm:telegram:23', 'Keeps a long list of the books they read this year, and asks for more like them');
    expect(await reads('dm:telegram:23')).toBe(1);
    expect(await reads('dm:telegram:23')).toBe(0);
    for (const scope of ['dm:telegram:20', 'dm:telegram:21', 'dm:telegram:22']) expect(await reads(scope)).toBe(1);
  });

  it('still shows a change made in this process at once', async () => {
    const memory = new MemoryService(database.db, logger);
    expect(await memory.promptLines('dm:telegram:5', 'hello')).toEqual([]);
    await memory.remember('dm:telegram:5', 'Lives in Lisbon');
    expect((await memory.promptLines('dm:telegram:5', 'hello')).map((line) => line.replace(/^\[\d+\] /, ''))).toEqual(['Lives in Lisbon']);
  });
});
