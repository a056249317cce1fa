import { eq, sql } from 'drizzle-orm';
import type { ChannelName, ChatType } from '../core/inbound-message.js';
import { runStatement, type StoreDatabase } from './database.js';
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

/** A session found missing: the row inserted for it, or the one another process inserted since (off the turn path). */
async function createOrFindSession(db: StoreDatabase, input: EnsureSessionInput): Promise<SessionRow> {
  await createOrFindSessionId(db, input);
  const created = await findSession(db, input.key);
  if (!created) throw new Error(`session ${input.key} vanished while being created`);
  return created;
}

const INSERT_SESSION = `
insert into sessions (key, agent_id, channel, account_id, chat_id, chat_type, user_id, title)
values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text)
on conflict (key) do nothing
returning id`;
const SESSION_ID = 'select id from sessions where key = $1::text';

/**
 * The id of the session with this key, inserted when missing (a turn's new session), as two statements of constant
 * text (prepared once per connection, no query building): the insert, and only when another process was first, the
 * read. They cannot be one: the read would not see a row whose insert this one waited for (it commits after the
 * statement began).
 */
export async function createOrFindSessionId(db: StoreDatabase, input: EnsureSessionInput): Promise<string> {
  const params = [input.key, input.agentId, input.channel, input.accountId, input.chatId, input.chatType, input.userId ?? null, input.title ?? null];
  const [inserted] = await runStatement<{ id: string }>(db, INSERT_SESSION, params);
  if (inserted) return inserted.id;
  const [found] = await runStatement<{ id: string }>(db, SESSION_ID, [input.key]);
  if (!found) throw new Error(`session ${input.key} vanished while being created`);
  return found.id;
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

const CONVERSATION = 'select conversation from sessions where key = $1::text';

/**
 * The conversation the stored session is in (0 when there is none): `/new` counts on from it when the session queue
 * has lost its own count. `/new` itself writes nothing here: the first turn after it moves the session on when it is
 * stored (flush-turn-statement.ts), so a turn of the old conversation stored late stays in the old one.
 */
export async function storedConversation(db: StoreDatabase, key: string): Promise<number> {
  const [row] = await runStatement<{ conversation: number }>(db, CONVERSATION, [key]);
  return Number(row?.conversation ?? 0);
}
