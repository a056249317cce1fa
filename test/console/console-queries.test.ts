import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  ensureSession,
  escapeLike,
  findConsoleSession,
  flushTurn,
  listConsoleSessions,
  sessions,
  transcriptPage,
  type SessionRow,
  type StoreDatabase,
} from '../../src/store/index.js';
import { usageByDay } from '../../src/usage/index.js';
import { describeEachBackend } from '../store/store-backends.js';
import { turnRecord } from '../store/fixtures.js';

async function session(db: StoreDatabase, input: { channel?: 'telegram' | 'slack'; chatId: string; title?: string; userId?: string; agentId?: string }): Promise<SessionRow> {
  const agentId = input.agentId ?? 'main';
  const channel = input.channel ?? 'telegram';
  const chatType = input.title ? 'group' : 'dm';
  return ensureSession(db, {
    key: `agent:${agentId}:${channel}:bot:${chatType}:${input.chatId}`,
    agentId,
    channel,
    accountId: 'bot',
    chatId: input.chatId,
    chatType,
    userId: input.userId,
    title: input.title,
  });
}

async function touch(db: StoreDatabase, row: SessionRow, at: string): Promise<void> {
  await db.update(sessions).set({ updatedAt: new Date(at) }).where(eq(sessions.id, row.id));
}

describeEachBackend('console queries', (database) => {
  const db = () => database().db;
  let ada: SessionRow;
  let team: SessionRow;
  let quiet: SessionRow;

  it('lists sessions newest first with their turns and cost, a page at a time', async () => {
    ada = await session(db(), { chatId: '9001', userId: '9001' });
    team = await session(db(), { channel: 'slack', chatId: 'C0TEAM', title: 'Team Room' });
    quiet = await session(db(), { chatId: '9003', userId: '9003' });
    await flushTurn(db(), turnRecord(ada));
    await flushTurn(db(), turnRecord(ada));
    await flushTurn(db(), { ...turnRecord(team), messages: [{ role: 'user', parts: [{ type: 'text', text: 'Where is the 100% Discount_code?' }], createdAt: new Date() }] });
    await touch(db(), ada, '2025-03-01T10:00:00.123456Z');
    await touch(db(), team, '2025-03-02T10:00:00Z');
    await touch(db(), quiet, '2025-03-01T10:00:00.123456Z');

    const first = await listConsoleSessions(db(), { limit: 2 });
    expect(first.sessions.map((row) => row.key)).toEqual([team.key, [ada, quiet].sort((a, b) => (a.id < b.id ? 1 : -1))[0]!.key]);
    expect(first.next).toBeDefined();
    const second = await listConsoleSessions(db(), { limit: 2, after: first.next });
    expect(second.next).toBeUndefined();
    // equal timestamps (to the microsecond) are split by id: nothing is skipped or repeated
    expect([...first.sessions, ...second.sessions].map((row) => row.key).sort()).toEqual([ada.key, team.key, quiet.key].sort());

    const adaRow = [...first.sessions, ...second.sessions].find((row) => row.key === ada.key)!;
    expect(adaRow).toMatchObject({ turns: 2, costUsd: 0.003, chatId: '9001', channel: 'telegram', title: null });
    expect(adaRow.lastActivityAt.toISOString()).toBe('2025-03-01T10:00:00.123Z');
    expect((await findConsoleSession(db(), team.key))).toMatchObject({ turns: 1, title: 'Team Room', channel: 'slack' });
    expect(await findConsoleSession(db(), 'agent:main:telegram:bot:dm:nobody')).toBeUndefined();
  });

  it('searches chat ids, titles, user ids and message text, case-insensitively and literally', async () => {
    const keys = async (search: string) => (await listConsoleSessions(db(), { search, limit: 10 })).sessions.map((row) => row.key).sort();
    expect(await keys('c0team')).toEqual([team.key]);
    expect(await keys('team room')).toEqual([team.key]);
    expect(await keys('9003')).toEqual([quiet.key]);
    expect(await keys('WHAT TIME')).toEqual([ada.key]);
    expect(await keys('100% discount_')).toEqual([team.key]);
    // % and _ are not wildcards
    expect(await keys('%')).toEqual([team.key]);
    expect(await keys('what_time')).toEqual([]);
    expect(await keys('nothing like this')).toEqual([]);
    expect(await keys('   ')).toHaveLength(3);
    expect(escapeLike('a\\b%c_d')).toBe('a\\\\b\\%c\\_d');
  });

  it('reads a transcript page by page with the runs and spans of its messages', async () => {
    const whole = await transcriptPage(db(), ada.id, { limit: 100 });
    expect(whole.messages.map((message) => message.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(whole.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(whole.runs).toHaveLength(2);
    expect(whole.runs[0]!.spans.map((span) => [span.kind, span.name, span.durationMs])).toEqual([
      ['llm', 'openai:gpt-test', 120],
      ['tool', 'clock', 3],
    ]);
    expect(whole.runs[0]!.spans[0]).toMatchObject({ inputTokens: 100, outputTokens: 20, costUsd: 0.001, isError: false });
    expect(whole.nextAfterSeq).toBeUndefined();

    const first = await transcriptPage(db(), ada.id, { limit: 3 });
    expect(first.messages.map((message) => message.seq)).toEqual([0, 1, 2]);
    expect(first.runs.map((run) => run.id)).toEqual([whole.messages[0]!.runId]);
    expect(first.nextAfterSeq).toBe(2);
    const rest = await transcriptPage(db(), ada.id, { limit: 10, afterSeq: first.nextAfterSeq });
    expect(rest.messages.map((message) => message.seq)).toEqual([3, 4, 5, 6, 7]);
    expect(rest.runs).toHaveLength(2);
    expect((await transcriptPage(db(), quiet.id, { limit: 10 })).runs).toEqual([]);
  });

  it('sums tokens and cost per UTC day, agent and channel over runs started in the range', async () => {
    const other = await session(db(), { chatId: randomUUID(), agentId: 'support' });
    const at = (iso: string) => {
      const startedAt = new Date(iso);
      return { startedAt, finishedAt: new Date(startedAt.getTime() + 1000) };
    };
    const run = (row: SessionRow, iso: string, costUsd: number) => {
      const record = turnRecord(row);
      return flushTurn(db(), { ...record, run: { ...record.run, ...at(iso), inputTokens: 10, outputTokens: 5, costUsd } });
    };
    await run(other, '2030-01-01T00:00:00Z', 0.5);
    await run(other, '2030-01-01T23:59:59.999Z', 0.25);
    await run(team, '2030-01-01T12:00:00Z', 1);
    await run(other, '2030-01-02T00:00:00Z', 2);
    await run(other, '2029-12-31T23:59:59.999Z', 4);

    const rows = await usageByDay(db(), { from: new Date('2030-01-01T00:00:00Z'), until: new Date('2030-01-02T00:00:00Z') });
    expect(rows).toEqual([
      { day: '2030-01-01', agent: 'main', channel: 'slack', inputTokens: 10, outputTokens: 5, costUsd: 1 },
      { day: '2030-01-01', agent: 'support', channel: 'telegram', inputTokens: 20, outputTokens: 10, costUsd: 0.75 },
    ]);
    expect((await usageByDay(db(), { from: new Date('2030-01-02T00:00:00Z'), until: new Date('2030-01-03T00:00:00Z') })).map((row) => row.costUsd)).toEqual([2]);
  });
});

describe('escapeLike', () => {
  it('leaves ordinary text alone', () => {
    expect(escapeLike('hello world')).toBe('hello world');
  });
});
