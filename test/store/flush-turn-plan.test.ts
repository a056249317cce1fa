import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { flushTurnsStatement } from '../../src/store/flush-turn-statement.js';
import { migrateDatabase, openDatabase, type Database } from '../../src/store/index.js';
import { createTestDatabase } from '../support/services.js';
import { newSession, turnRecord } from './fixtures.js';

/**
 * The flush statement's plan on a database with many sessions (counts, not times): PostgreSQL guesses 100 rows for
 * every jsonb_to_recordset, and against that guess it once preferred a sequential scan of `sessions` for the
 * UPDATE that claims each turn's sequence numbers, so every flush read the whole table.
 */
const SESSIONS = 10_000;

let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
let sql: postgres.Sql;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  database = await openDatabase({ databaseUrl: testDatabase.url, dataDir: tmpdir() });
  await migrateDatabase(database);
  sql = postgres(testDatabase.url, { max: 1, onnotice: () => {} });
  await sql`
    insert into sessions (key, agent_id, channel, account_id, chat_id, chat_type, user_id)
    select 'agent:main:telegram:bot:dm:' || n, 'main', 'telegram', 'bot', n::text, 'dm', n::text
      from generate_series(1, ${SESSIONS}::integer) as n`;
  await sql`analyze sessions`;
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await database?.close();
  await testDatabase?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The plan PostgreSQL would run for the statement, as the service sends it (prepared, parameters bound). */
async function planOf(statement: { text: string; params: unknown[] }, mode: 'force_custom_plan' | 'force_generic_plan'): Promise<PlanNode[]> {
  const name = `flush_${mode}_${statement.params.length}`;
  // EXPLAIN writes nothing: the statement is planned, not run
  await sql.unsafe(`set plan_cache_mode = ${mode}`);
  await sql.unsafe(`prepare ${name} as ${statement.text}`);
  const literal = (value: unknown) => `$json$${String(value)}$json$`;
  const [row] = await sql.unsafe<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(`explain (format json) execute ${name}(${statement.params.map(literal).join(', ')})`);
  await sql.unsafe(`deallocate ${name}`);
  const [plan] = row!['QUERY PLAN'];
  return nodesOf(plan!.Plan);
}

describe(`the turn flush statement with ${SESSIONS.toLocaleString('en')} sessions`, () => {
  it.each(['force_custom_plan', 'force_generic_plan'] as const)('finds its sessions through the primary key, never by reading the whole table (%s)', async (mode) => {
    const session = await newSession(database.db);
    const plain = flushTurnsStatement([turnRecord(session)]);
    const withPeople = flushTurnsStatement([turnRecord(session, { people: [{ channel: 'telegram', userId: '42', name: 'Ada' }] })]);
    expect(withPeople.text).not.toBe(plain.text);
    for (const statement of [plain, withPeople]) {
      const sessionsScans = (await planOf(statement, mode)).filter((node) => node['Relation Name'] === 'sessions');
      expect(sessionsScans.length).toBeGreaterThan(0);
      expect(sessionsScans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    }
  });
});
