import { eq, sql } from 'drizzle-orm';
import type { StoreDatabase } from './database.js';
import { sessions } from './schema/index.js';
import type { EnsureSessionInput } from './session-repository.js';

/**
 * `/model`: the session's chosen model (`provider:model`; null: back to the agent's own), in one statement that
 * creates the session's row when the choice comes before its first turn. Turns read it with the session
 * (session-snapshot.ts), so whoever writes it also moves the session's history version on.
 */
export async function chooseSessionModel(db: StoreDatabase, session: EnsureSessionInput, model: string | null): Promise<void> {
  await db
    .insert(sessions)
    .values({
      key: session.key,
      agentId: session.agentId,
      channel: session.channel,
      accountId: session.accountId,
      chatId: session.chatId,
      chatType: session.chatType,
      userId: session.userId ?? null,
      title: session.title ?? null,
      model,
    })
    .onConflictDoUpdate({ target: sessions.key, set: { model, updatedAt: sql`now()` } });
}

/** The session's chosen model (`provider:model`); undefined: none chosen, or no such session. */
export async function sessionModelOf(db: StoreDatabase, key: string): Promise<string | undefined> {
  const [row] = await db.select({ model: sessions.model }).from(sessions).where(eq(sessions.key, key)).limit(1);
  return row?.model ?? undefined;
}
