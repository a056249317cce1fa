import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { createOrFindSessionId, ensureSession, findSession, flushTurn, loadHistory, sessions, storedConversation, type EnsureSessionInput } from '../../src/store/index.js';
import { turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

function groupInput(overrides: Partial<EnsureSessionInput> = {}): EnsureSessionInput {
  const chatId = `-100${randomUUID()}`;
  return {
    key: `agent:main:telegram:bot:group:${chatId}`,
    agentId: 'main',
    channel: 'telegram',
    accountId: 'bot',
    chatId,
    chatType: 'group',
    title: 'Team chat',
    ...overrides,
  };
}

describeEachBackend('sessions', (database) => {
  it('creates a session on first use with empty counters', async () => {
    const { db } = database();
    const input = groupInput();

    const session = await ensureSession(db, input);

    expect(session).toMatchObject({
      key: input.key,
      agentId: 'main',
      channel: 'telegram',
      accountId: 'bot',
      chatId: input.chatId,
      chatType: 'group',
      userId: null,
      title: 'Team chat',
      nextSeq: 0,
      historyStartSeq: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      compactionCount: 0,
      lastModel: null,
    });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.createdAt).toBeInstanceOf(Date);
  });

  it("creates a turn's new session by its id: the row ensureSession would write, one row however many ask at once", async () => {
    const { db } = database();
    const input = groupInput({ chatType: 'dm', userId: '42', title: undefined });

    const ids = await Promise.all(Array.from({ length: 5 }, () => createOrFindSessionId(db, input)));
    const again = await createOrFindSessionId(db, input);

    expect(new Set([...ids, again]).size).toBe(1);
    const rows = await db.select().from(sessions).where(eq(sessions.key, input.key));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: again, agentId: 'main', channel: 'telegram', accountId: 'bot', chatId: input.chatId, chatType: 'dm', userId: '42', title: null, nextSeq: 0 });
    expect(await findSession(db, input.key)).toMatchObject({ id: again });
  });

  it('returns the same session for the same key, also when asked concurrently', async () => {
    const { db } = database();
    const input = groupInput();

    const results = await Promise.all(Array.from({ length: 5 }, () => ensureSession(db, input)));
    const again = await ensureSession(db, { ...input, title: undefined });

    expect(new Set([...results, again].map((session) => session.id)).size).toBe(1);
    expect(again.title).toBe('Team chat');
    expect(await db.select().from(sessions).where(eq(sessions.key, input.key))).toHaveLength(1);
  });

  it('writes a changed title', async () => {
    const { db } = database();
    const input = groupInput();
    const first = await ensureSession(db, input);

    const renamed = await ensureSession(db, { ...input, title: 'Renamed' });

    expect(renamed).toMatchObject({ id: first.id, title: 'Renamed' });
    expect((await findSession(db, input.key))!.title).toBe('Renamed');
  });

  it('rejects a chat type that is neither dm nor group', async () => {
    const { db } = database();
    await expect(ensureSession(db, groupInput({ chatType: 'channel' as 'group' }))).rejects.toThrow();
  });

  it('a turn of a newer conversation (after /new) keeps the history but stops loading it', async () => {
    const { db } = database();
    const session = await ensureSession(db, groupInput());
    await flushTurn(db, turnRecord(session));
    expect(await storedConversation(db, session.key)).toBe(0);

    await flushTurn(db, turnRecord(session, { conversation: 1 }));

    expect(await findSession(db, session.key)).toMatchObject({ nextSeq: 8, historyStartSeq: 4, conversation: 1 });
    expect((await loadHistory(db, session.id)).map((message) => message.seq)).toEqual([4, 5, 6, 7]);
    expect(await storedConversation(db, session.key)).toBe(1);
  });

  it('the stored conversation of an unknown key is 0', async () => {
    const { db } = database();
    expect(await storedConversation(db, 'agent:main:telegram:bot:dm:nobody')).toBe(0);
    expect(await findSession(db, 'agent:main:telegram:bot:dm:nobody')).toBeUndefined();
  });
});
