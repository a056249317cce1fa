import { eq, sql } from 'drizzle-orm';
import type { ChannelName, ChatType } from '../core/inbound-message.js';
import type { StoreDatabase } from './database.js';
import { sessions, type SessionRow } from './schema/index.js';

export interface EnsureSessionInput {
  key: string;
  agentId: string;
  channel: ChannelName;
  accountId: string;
  chatId: string;
  chatType: ChatType;
  userId?: string | undefined;
  title?: string | undefined;
}

/**
 * The session with this key, created on first use. A changed title is written; an unchanged one
 * costs no write, so the common case (an existing session) is one SELECT.
 */
export async function ensureSession(db: StoreDatabase, input: EnsureSessionInput): Promise<SessionRow> {
  const existing = await findSession(db, input.key);
  if (existing) return input.title === undefined || input.title === existing.title ? existing : retitle(db, existing, input.title);
  return createOrFindSession(db, input);
}

/** A session found missing: the row inserted for it, or the one another process inserted since. */
export async function createOrFindSession(db: StoreDatabase, input: EnsureSessionInput): Promise<SessionRow> {
  const inserted = await createSession(db, input);
  if (inserted) return inserted;
  const created = await findSession(db, input.key);
  if (!created) throw new Error(`session ${input.key} vanished while being created`);
  return created;
}

/** A new session row; undefined when one with this key exists already (another process was first). */
export async function createSession(db: StoreDatabase, input: EnsureSessionInput): Promise<SessionRow | undefined> {
  const [inserted] = await db
    .insert(sessions)
    .values({
      key: input.key,
      agentId: input.agentId,
      channel: input.channel,
      accountId: input.accountId,
      chatId: input.chatId,
      chatType: input.chatType,
      userId: input.userId ?? null,
      title: input.title ?? null,
    })
    .onConflictDoNothing({ target: sessions.key })
    .returning();
  return inserted;
}

async function retitle(db: StoreDatabase, session: SessionRow, title: string): Promise<SessionRow> {
  const [updated] = await db
    .update(sessions)
    .set({ title, updatedAt: sql`now()` })
    .where(eq(sessions.id, session.id))
    .returning();
  return updated ?? session;
}

export async function findSession(db: StoreDatabase, key: string): Promise<SessionRow | undefined> {
  const [session] = await db.select().from(sessions).where(eq(sessions.key, key)).limit(1);
  return session;
}

/** `/new`: history stays stored but is no longer loaded. Returns whether the session existed. */
export async function resetSession(db: StoreDatabase, key: string): Promise<boolean> {
  const updated = await db
    .update(sessions)
    .set({ historyStartSeq: sql`${sessions.nextSeq}`, updatedAt: sql`now()` })
    .where(eq(sessions.key, key))
    .returning({ id: sessions.id });
  return updated.length > 0;
}
