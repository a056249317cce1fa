import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, sessions, type Database, type EnsureSessionInput } from '../../src/store/index.js';
import { createTurnStore } from '../../src/turn/store-adapter.js';
import type { OpenedSession } from '../../src/turn/turn-store.js';
import { createBackend, describeEachBackend, type Backend } from '../store/store-backends.js';

function dmInput(): EnsureSessionInput {
  const chatId = randomUUID();
  return { key: `agent:main:telegram:bot:dm:${chatId}`, agentId: 'main', channel: 'telegram', accountId: 'bot', chatId, chatType: 'dm', userId: chatId };
}

describeEachBackend('turn store: opening a session', (database) => {
  it('creates a session the snapshot did not find', async () => {
    const { db } = database();
    const input = dmInput();
    const opened = await createTurnStore(db).openSession(input, undefined);
    expect(opened).toMatchObject({ summary: undefined, history: [] });
    // the id comes once the row is written
    const id = await opened.id;
    const [row] = await db.select().from(sessions).where(eq(sessions.key, input.key));
    expect(row).toMatchObject({ id, userId: input.userId, chatType: 'dm' });
  });

  it('gives concurrent first turns of one new session the same row (the ones whose insert lost read it again)', async () => {
    const { db } = database();
    const input = dmInput();
    const opened = await Promise.all(Array.from({ length: 5 }, () => createTurnStore(db).openSession(input, undefined)));
    expect(new Set(await Promise.all(opened.map((session) => session.id))).size).toBe(1);
    expect(await db.select().from(sessions).where(eq(sessions.key, input.key))).toHaveLength(1);
  });
});

describe('turn store: a new session does not wait for its row (PostgreSQL)', () => {
  let backend: Backend;
  let database: Database;
  let other: postgres.Sql;
  beforeAll(async () => {
    backend = await createBackend('postgres');
    database = await backend.open();
    await migrateDatabase(database);
    other = postgres(backend.url!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await other?.end();
    await backend?.dispose();
  });

  /**
   * Another transaction inserts the same key and holds it uncommitted: our insert waits on the unique index as it
   * would behind a slow commit, while the snapshot (which cannot see that row) has already answered.
   */
  async function withCompetingInsert(input: EnsureSessionInput, end: 'commit' | 'rollback', during: () => Promise<void>): Promise<string> {
    let competingId = '';
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = other
      .begin(async (sql) => {
        const [row] = await sql`insert into sessions (key, agent_id, channel, account_id, chat_id, chat_type) values (${input.key}, 'main', 'telegram', 'bot', ${input.chatId}, 'dm') returning id`;
        competingId = row!.id as string;
        inserted();
        await held;
        if (end === 'rollback') throw new Error('rolled back on purpose');
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error && error.message === 'rolled back on purpose')) throw error;
      });
    await insertedYet;
    try {
      await during();
    } finally {
      release();
      await transaction;
    }
    return competingId;
  }

  it('opens at once, and the id is the row it inserted once the insert gets through', async () => {
    const input = dmInput();
    let opened!: OpenedSession;
    let settledWhileHeld = false;
    await withCompetingInsert(input, 'rollback', async () => {
      opened = await createTurnStore(database.db).openSession(input, undefined);
      expect(opened).toMatchObject({ summary: undefined, history: [] });
      void opened.id.then(() => (settledWhileHeld = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    // the insert was held back all along: the session had opened without it
    expect(settledWhileHeld).toBe(false);
    const id = await opened.id;
    const [row] = await database.db.select().from(sessions).where(eq(sessions.key, input.key));
    expect(row?.id).toBe(id);
  });

  it('takes the id of the row another process inserted first', async () => {
    const input = dmInput();
    let opened!: OpenedSession;
    const competingId = await withCompetingInsert(input, 'commit', async () => {
      opened = await createTurnStore(database.db).openSession(input, undefined);
    });
    expect(await opened.id).toBe(competingId);
    expect(await database.db.select().from(sessions).where(eq(sessions.key, input.key))).toHaveLength(1);
  });
});
