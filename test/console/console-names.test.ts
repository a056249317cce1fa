import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  chatNames,
  ensureSession,
  flushTurn,
  listConsoleSessions,
  namesMatching,
  people,
  peopleNames,
  sessions,
  type SessionRow,
  type StoreDatabase,
  type TurnPerson,
} from '../../src/store/index.js';
import { NamesWritten } from '../../src/turn/names-written.js';
import { createTurnStore } from '../../src/turn/store-adapter.js';
import { turnRecord } from '../store/fixtures.js';
import { describeEachBackend } from '../store/store-backends.js';

const ada: TurnPerson = { channel: 'telegram', userId: '7001', name: 'Ada Lovelace', username: 'ada' };

async function dmOf(db: StoreDatabase, userId: string): Promise<SessionRow> {
  return ensureSession(db, { key: `agent:main:telegram:bot:dm:${userId}`, agentId: 'main', channel: 'telegram', accountId: 'bot', chatId: userId, chatType: 'dm', userId });
}

async function groupOf(db: StoreDatabase, chatId: string, agentId = 'main'): Promise<SessionRow> {
  return ensureSession(db, { key: `agent:${agentId}:telegram:bot:group:${chatId}`, agentId, channel: 'telegram', accountId: 'bot', chatId, chatType: 'group' });
}

async function personRow(db: StoreDatabase, userId: string) {
  const [row] = await db.select().from(people).where(eq(people.userId, userId));
  return row;
}

describeEachBackend('names in the turn store', (database) => {
  const db = () => database().db;

  it('stores senders’ names with the turn, keeps them current, and never erases one with a missing field', async () => {
    const dm = await dmOf(db(), ada.userId);
    await flushTurn(db(), { ...turnRecord(dm), people: [ada] });
    expect(await personRow(db(), '7001')).toMatchObject({ channel: 'telegram', name: 'Ada Lovelace', username: 'ada' });
    const written = (await personRow(db(), '7001'))!.updatedAt;

    // the same names again: the row is left alone
    await flushTurn(db(), { ...turnRecord(dm), people: [ada] });
    expect((await personRow(db(), '7001'))!.updatedAt).toEqual(written);

    // a rename is written; a later turn without a name (a Slack slash command has none) keeps it
    await flushTurn(db(), { ...turnRecord(dm), people: [{ ...ada, name: 'Ada King' }] });
    expect(await personRow(db(), '7001')).toMatchObject({ name: 'Ada King', username: 'ada' });
    await flushTurn(db(), { ...turnRecord(dm), people: [{ channel: 'telegram', userId: '7001', username: 'countess' }] });
    expect(await personRow(db(), '7001')).toMatchObject({ name: 'Ada King', username: 'countess' });

    // several messages of one turn from one person: one row, the latest naming
    await flushTurn(db(), { ...turnRecord(dm), people: [{ ...ada, name: 'First' }, { ...ada, name: 'Second' }] });
    expect(await personRow(db(), '7001')).toMatchObject({ name: 'Second' });
  });

  it('writes nothing of a turn that was already stored (a retried flush)', async () => {
    const dm = await dmOf(db(), '7002');
    const record = turnRecord(dm);
    expect(await flushTurn(db(), { ...record, people: [{ channel: 'telegram', userId: '7002', name: 'Grace' }] })).toEqual({ written: true });
    expect(await flushTurn(db(), { ...record, people: [{ channel: 'telegram', userId: '7002', name: 'Not Grace' }] })).toEqual({ written: false });
    expect(await personRow(db(), '7002')).toMatchObject({ name: 'Grace' });
  });

  it('keeps a group’s title current from its turns; a turn without one leaves it', async () => {
    const group = await groupOf(db(), '-100700');
    await flushTurn(db(), { ...turnRecord(group), chatTitle: 'Night Owls' });
    const title = async () => (await db().select({ title: sessions.title }).from(sessions).where(eq(sessions.id, group.id)))[0]!.title;
    expect(await title()).toBe('Night Owls');
    await flushTurn(db(), turnRecord(group));
    expect(await title()).toBe('Night Owls');
  });

  it('carries a name in the flush only when it changed since this process wrote it (or an hour ago)', async () => {
    let now = Date.parse('2026-03-10T12:00:00Z');
    const store = createTurnStore(db(), { names: new NamesWritten(() => now) });
    const dm = await dmOf(db(), '7003');
    const linus: TurnPerson = { channel: 'telegram', userId: '7003', name: 'Linus' };
    await store.flushTurn({ ...turnRecord(dm), people: [linus] });
    expect((await personRow(db(), '7003'))?.name).toBe('Linus');

    // another process wrote another name meanwhile: this process does not send the unchanged one again…
    await db().update(people).set({ name: 'Elsewhere' }).where(eq(people.userId, '7003'));
    await store.flushTurn({ ...turnRecord(dm), people: [linus] });
    expect((await personRow(db(), '7003'))?.name).toBe('Elsewhere');
    // …a change is sent at once…
    await store.flushTurn({ ...turnRecord(dm), people: [{ ...linus, username: 'torvalds' }] });
    expect(await personRow(db(), '7003')).toMatchObject({ name: 'Linus', username: 'torvalds' });
    // …and an unchanged name is written again after an hour
    await db().update(people).set({ name: 'Elsewhere' }).where(eq(people.userId, '7003'));
    now += 60 * 60 * 1000;
    await store.flushTurn({ ...turnRecord(dm), people: [linus] });
    expect((await personRow(db(), '7003'))?.name).toBe('Linus');
  });

  it('lists DM sessions with their user’s name and finds them by name, @username, user, chat and agent', async () => {
    const grace = await dmOf(db(), '7002');
    const group = await groupOf(db(), '-100700');
    const support = await groupOf(db(), '-100700', 'support');
    await flushTurn(db(), { ...turnRecord(support), chatTitle: 'Night Owls' });
    const page = await listConsoleSessions(db(), { limit: 50 });
    expect(page.sessions.find((row) => row.key === grace.key)).toMatchObject({ userId: '7002', userName: 'Grace', username: null });
    expect(page.sessions.find((row) => row.key === `agent:main:telegram:bot:dm:7001`)).toMatchObject({ userName: 'Second', username: 'ada' });

    const keys = async (query: Parameters<typeof listConsoleSessions>[1]) => (await listConsoleSessions(db(), query)).sessions.map((row) => row.key).sort();
    expect(await keys({ search: 'grace', limit: 50 })).toEqual([grace.key]);
    expect(await keys({ search: '@ADA', limit: 50 })).toEqual(['agent:main:telegram:bot:dm:7001']);
    expect(await keys({ search: 'night owls', limit: 50 })).toEqual([group.key, support.key].sort());
    expect(await keys({ filter: { channel: 'telegram', userId: '7002' }, limit: 50 })).toEqual([grace.key]);
    expect(await keys({ filter: { channel: 'telegram', accountId: 'bot', chatId: '-100700' }, limit: 50 })).toEqual([group.key, support.key].sort());
    expect(await keys({ filter: { channel: 'telegram', accountId: 'bot', chatId: '-100700' }, search: 'nothing here', limit: 50 })).toEqual([]);
    expect(await keys({ filter: { agentId: 'support' }, limit: 50 })).toEqual([support.key]);
    expect(await keys({ filter: { channel: 'slack', userId: '7002' }, limit: 50 })).toEqual([]);
  });

  it('names a page of budget ids: people by primary key, chats by their latest session, and searches both', async () => {
    const found = await peopleNames(db(), [
      { channel: 'telegram', userId: '7001' },
      { channel: 'telegram', userId: '7002' },
      { channel: 'slack', userId: '7002' },
    ]);
    expect([...found.keys()].sort()).toEqual(['telegram:7001', 'telegram:7002']);
    expect(found.get('telegram:7002')).toMatchObject({ name: 'Grace', username: null });

    // the support agent's session of the group was the last active one
    await db().execute(sql`update sessions set updated_at = now() + interval '1 minute' where key = 'agent:support:telegram:bot:group:-100700'`);
    const chats = await chatNames(db(), [
      { channel: 'telegram', accountId: 'bot', chatId: '-100700' },
      { channel: 'telegram', accountId: 'bot', chatId: '7002' },
      { channel: 'telegram', accountId: 'other', chatId: '7002' },
    ]);
    expect([...chats.keys()].sort()).toEqual(['telegram:bot:-100700', 'telegram:bot:7002']);
    expect(chats.get('telegram:bot:-100700')).toMatchObject({ chatType: 'group', title: 'Night Owls', sessions: 2, sessionKey: 'agent:support:telegram:bot:group:-100700' });
    expect(chats.get('telegram:bot:7002')).toMatchObject({ chatType: 'dm', title: null, userName: 'Grace', sessions: 1 });

    const matching = await namesMatching(db(), 'grac');
    expect([...matching.people]).toEqual(['telegram:7002']);
    expect([...matching.chats]).toEqual(['telegram:bot:7002']);
    expect([...(await namesMatching(db(), 'owls')).chats]).toEqual(['telegram:bot:-100700']);
    expect((await namesMatching(db(), '100%')).people.size).toBe(0);
  });
});

describe('NamesWritten', () => {
  it('forgets the oldest person beyond its bound', () => {
    const names = new NamesWritten(() => 0);
    const many = Array.from({ length: 10_001 }, (_, index): TurnPerson => ({ channel: 'slack', userId: `U${index}`, name: `n${index}` }));
    names.remember(many);
    expect(names.changed([many[0]!])).toHaveLength(1);
    expect(names.changed([many[1]!, many[10_000]!])).toEqual([]);
  });
});
