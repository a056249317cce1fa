import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { forgetMemory, listMemories, rememberMemory, searchMemories } from '../../src/memory/memory-repository.js';
import { detectVectorStore } from '../../src/memory/vector-store.js';
import { cancelChatTask, findTask, insertTaskWithinLimit, listChatTasks, pauseTasks, recordFiring, resumeTasks } from '../../src/schedules/task-repository.js';
import { describeEachBackend } from './store-backends.js';

const conversation = { channel: 'telegram' as const, accountId: 'b', chatId: '42', chatType: 'dm' as const, messageId: '1' };
const task = (id: string, chatKey = 'agent:main:telegram:b:dm:42') => ({
  id,
  chatKey,
  sessionKey: chatKey,
  agentId: 'main',
  conversation,
  creatorId: '42',
  prompt: 'p',
  kind: 'every' as const,
  schedule: '3600',
  timezone: 'UTC',
});

describeEachBackend('memories', (database) => {
  it('merges equal and near-equal texts, searches by words within the scope, and deletes only in the scope', async () => {
    const db = database().db;
    const first = await rememberMemory(db, 's1', 'Grace lives in Arlington, Virginia');
    expect(first.kind).toBe('added');
    expect((await rememberMemory(db, 's1', 'grace lives in arlington, virginia.')).kind).toBe('duplicate');
    const updated = await rememberMemory(db, 's1', 'Grace lives in Arlington Virginia USA');
    expect(updated).toMatchObject({ kind: 'updated', memory: { id: first.memory.id, text: 'Grace lives in Arlington Virginia USA' } });
    await rememberMemory(db, 's1', 'Prefers tea over coffee');
    await rememberMemory(db, 's2', 'Arlington is where the office is');
    expect((await listMemories(db, 's1')).map((memory) => memory.text)).toEqual(['Grace lives in Arlington Virginia USA', 'Prefers tea over coffee']);
    // the same shape rememberMemory gives: a numeric id, a Date
    const [listed] = await listMemories(db, 's1', 1);
    expect(listed).toEqual({ id: first.memory.id, text: updated.memory.text, createdAt: first.memory.createdAt });
    expect(typeof listed!.id).toBe('number');
    expect((await searchMemories(db, 's1', 'where does she live? arlington')).map((memory) => memory.text)).toEqual(['Grace lives in Arlington Virginia USA']);
    expect((await searchMemories(db, 's1', 'coffees?')).map((memory) => memory.text)).toEqual([]); // prefix of the query word, not of the memory
    expect((await searchMemories(db, 's1', 'coff')).map((memory) => memory.text)).toEqual(['Prefers tea over coffee']);
    expect(await forgetMemory(db, 's2', first.memory.id)).toBeUndefined();
    expect(await forgetMemory(db, 's1', first.memory.id)).toMatchObject({ id: first.memory.id });
    expect(await listMemories(db, 's1')).toHaveLength(1);
  });

  it('finds no pgvector here and says why', async () => {
    const detected = await detectVectorStore(database().db);
    expect('reason' in detected ? detected.reason : 'available').toMatch(/vector/);
  });
});

describeEachBackend('scheduled tasks', (database) => {
  it('counts live tasks per chat, cancels within the chat, and records a firing once per slot', async () => {
    const db = database().db;
    expect(await insertTaskWithinLimit(db, task('t1'), 2)).toBeDefined();
    expect(await insertTaskWithinLimit(db, task('t2'), 2)).toBeDefined();
    expect(await insertTaskWithinLimit(db, task('t3'), 2)).toBeUndefined();
    expect(await insertTaskWithinLimit(db, task('t4', 'agent:main:telegram:b:dm:43'), 2)).toBeDefined();
    const concurrent = await Promise.all([insertTaskWithinLimit(db, task('c1', 'k'), 1), insertTaskWithinLimit(db, task('c2', 'k'), 1)]);
    expect(concurrent.filter(Boolean)).toHaveLength(1);
    expect(await cancelChatTask(db, 'agent:main:telegram:b:dm:43', 't1')).toBeUndefined();
    expect(await cancelChatTask(db, 'agent:main:telegram:b:dm:42', 't1')).toMatchObject({ status: 'cancelled' });
    expect((await listChatTasks(db, 'agent:main:telegram:b:dm:42')).map((row) => row.id)).toEqual(['t2']);

    const slot = new Date('2026-01-01T10:00:00Z');
    await recordFiring(db, 't2', slot, new Date('2026-01-01T11:00:00Z'));
    await db.execute(sql`update scheduled_tasks set last_outcome = 'completed' where id = 't2'`); // its turn reported
    await recordFiring(db, 't2', slot, new Date('2026-01-01T11:00:00Z')); // the same firing retried
    expect(await findTask(db, 't2')).toMatchObject({ lastOutcome: 'completed', lastRunAt: slot });
    await recordFiring(db, 't2', new Date('2026-01-01T11:00:00Z'), undefined);
    expect(await findTask(db, 't2')).toMatchObject({ lastOutcome: 'queued' });
  });

  it('a topic session sees, cancels, pauses and resumes its own tasks only; the chat sees all', async () => {
    const db = database().db;
    const chatKey = 'agent:main:telegram:b:group:-100';
    const inTopic = (id: string, threadId: string) => ({
      ...task(id, chatKey),
      sessionKey: `${chatKey}:topic:${threadId}`,
      threadKind: 'topic' as const,
      conversation: { ...conversation, chatId: '-100', chatType: 'group' as const, threadId },
    });
    await insertTaskWithinLimit(db, inTopic('p1', '7'), 10);
    await insertTaskWithinLimit(db, inTopic('p2', '8'), 10);
    await insertTaskWithinLimit(db, { ...task('p3', chatKey), conversation: { ...conversation, chatId: '-100', chatType: 'group' as const } }, 10);
    expect((await listChatTasks(db, chatKey, `${chatKey}:topic:7`)).map((row) => row.id)).toEqual(['p1']);
    expect((await listChatTasks(db, chatKey)).map((row) => row.id).sort()).toEqual(['p1', 'p2', 'p3']);
    expect(await cancelChatTask(db, chatKey, 'p2', `${chatKey}:topic:7`)).toBeUndefined();

    const where = { channel: 'telegram', accountId: 'b', chatId: '-100' };
    expect((await pauseTasks(db, { ...where, threadId: '7' }, 'topic closed')).map((row) => row.id)).toEqual(['p1']);
    expect((await findTask(db, 'p2'))!.status).toBe('active');
    expect((await resumeTasks(db, { ...where, threadId: '8' })).map((row) => row.id)).toEqual([]);
    // back in the chat, a task paused for its topic stays paused (a reason prefix keeps it); the topic reopened resumes it
    await pauseTasks(db, where, 'the bot was removed from the chat (kicked)');
    expect((await resumeTasks(db, where, 'topic closed')).map((row) => row.id).sort()).toEqual(['p2', 'p3']);
    expect((await resumeTasks(db, { ...where, threadId: '7' })).map((row) => row.id)).toEqual(['p1']);
  });
});
