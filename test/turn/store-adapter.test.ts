import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { sessions, type EnsureSessionInput } from '../../src/store/index.js';
import { createTurnStore } from '../../src/turn/store-adapter.js';
import { describeEachBackend } from '../store/store-backends.js';

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
    const [row] = await db.select().from(sessions).where(eq(sessions.key, input.key));
    expect(row).toMatchObject({ id: opened.id, userId: input.userId, chatType: 'dm' });
  });

  it('gives concurrent first turns of one new session the same row (the ones whose insert lost read it again)', async () => {
    const { db } = database();
    const input = dmInput();
    const opened = await Promise.all(Array.from({ length: 5 }, () => createTurnStore(db).openSession(input, undefined)));
    expect(new Set(opened.map((session) => session.id)).size).toBe(1);
    expect(await db.select().from(sessions).where(eq(sessions.key, input.key))).toHaveLength(1);
  });
});
