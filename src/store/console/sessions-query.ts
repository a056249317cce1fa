import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { ChannelName, ChatType } from '../../core/inbound-message.js';
import type { StoreDatabase } from '../database.js';
import { people, sessions } from '../schema/index.js';

/** One row of the console's session list. */
export interface ConsoleSession {
  id: string;
  key: string;
  agentId: string;
  channel: ChannelName;
  accountId: string;
  chatId: string;
  chatType: ChatType;
  userId: string | null;
  /** The DM user's display name and username (`people`), when the platform sent them. */
  userName: string | null;
  username: string | null;
  title: string | null;
  /** `/model`'s choice (`provider:model`); null: the agent's own model. */
  model: string | null;
  /** The session's chat's `/model` choice (`chat_models`, agents with `modelChoice: chat`); only on a found session. */
  chatModel?: string | null;
  lastActivityAt: Date;
  /** Stored runs (turns) of the session. */
  turns: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Where the next page starts: the last row's `updated_at` (microseconds, UTC) and id. */
export interface SessionsCursor {
  lastActivityAt: string;
  id: string;
}

/** Exact filters, as the budgets page links to a user's, a chat's or an agent's sessions. */
export interface SessionsFilter {
  channel?: string | undefined;
  accountId?: string | undefined;
  chatId?: string | undefined;
  /** The DM sessions of this user. */
  userId?: string | undefined;
  agentId?: string | undefined;
}

export interface SessionsQuery {
  /** Case-insensitive substring of the chat (id, title, key), the user (id, name, username), or a message's text. */
  search?: string | undefined;
  filter?: SessionsFilter | undefined;
  limit: number;
  after?: SessionsCursor | undefined;
}

export interface SessionsPage {
  sessions: ConsoleSession[];
  /** Set when more sessions follow. */
  next: SessionsCursor | undefined;
}

const MICROSECONDS_UTC = 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"';

const sessionColumns = {
  id: sessions.id,
  key: sessions.key,
  agentId: sessions.agentId,
  channel: sessions.channel,
  accountId: sessions.accountId,
  chatId: sessions.chatId,
  chatType: sessions.chatType,
  userId: sessions.userId,
  userName: people.name,
  username: people.username,
  title: sessions.title,
  model: sessions.model,
  lastActivityAt: sessions.updatedAt,
  // written out: drizzle leaves the selected columns unqualified, where `id` would be the runs' own (index: runs_session_id_started_at_index)
  turns: sql<number>`(select count(*) from runs where runs.session_id = sessions.id)`.mapWith(Number),
  inputTokens: sessions.inputTokens,
  outputTokens: sessions.outputTokens,
  costUsd: sessions.costUsd,
};

/**
 * Sessions by last activity, newest first, a page at a time (keyset on `(updated_at, id)`, served by
 * `sessions_updated_at_id_index`). A search matches the session's own fields or the text parts of its
 * messages: an unanchored ILIKE, so it scans messages (there is no trigram index: the extension is not
 * available everywhere the store runs, embedded PGlite included).
 */
export async function listConsoleSessions(db: StoreDatabase, query: SessionsQuery): Promise<SessionsPage> {
  const conditions: SQL[] = [];
  const search = query.search?.trim();
  if (search) conditions.push(matches(`%${escapeLike(search)}%`, `%${escapeLike(search.replace(/^@/, ''))}%`));
  conditions.push(...filterConditions(query.filter ?? {}));
  if (query.after) {
    conditions.push(sql`(${sessions.updatedAt}, ${sessions.id}) < (${query.after.lastActivityAt}::timestamptz, ${query.after.id}::uuid)`);
  }
  const rows = await db
    .select({ ...sessionColumns, cursorTime: sql<string>`to_char(${sessions.updatedAt} at time zone 'UTC', ${MICROSECONDS_UTC})` })
    .from(sessions)
    .leftJoin(people, personOfSession)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(sessions.updatedAt), desc(sessions.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    sessions: page.map(({ cursorTime: _cursorTime, ...session }) => session),
    next: rows.length > query.limit && last ? { lastActivityAt: last.cursorTime, id: last.id } : undefined,
  };
}

/** The session with this key, with the same figures as in the list. */
export async function findConsoleSession(db: StoreDatabase, key: string): Promise<ConsoleSession | undefined> {
  const [row] = await db
    .select({ ...sessionColumns, chatModel: chatModelOfSession })
    .from(sessions)
    .leftJoin(people, personOfSession)
    .where(eq(sessions.key, key))
    .limit(1);
  return row;
}

/** The chat's choice, by the chat's key: the session's without its thread or topic (as core/session-key.ts cuts it). */
const chatModelOfSession = sql<string | null>`(select chat_models.model from chat_models where chat_models.chat_key = regexp_replace(sessions.key, ':(thread|topic):.*$', ''))`;

/** A DM session's user, by the primary key of `people`. */
const personOfSession = and(eq(people.channel, sessions.channel), eq(people.userId, sessions.userId));

function filterConditions(filter: SessionsFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.channel !== undefined) conditions.push(eq(sessions.channel, filter.channel as ChannelName));
  if (filter.accountId !== undefined) conditions.push(eq(sessions.accountId, filter.accountId));
  if (filter.chatId !== undefined) conditions.push(eq(sessions.chatId, filter.chatId));
  if (filter.userId !== undefined) conditions.push(eq(sessions.userId, filter.userId));
  if (filter.agentId !== undefined) conditions.push(eq(sessions.agentId, filter.agentId));
  return conditions;
}

/** `usernamePattern`: the same without a leading `@`, as people write usernames. */
function matches(pattern: string, usernamePattern: string): SQL {
  const messageText = sql`exists (
    select 1 from messages, jsonb_array_elements(messages.parts) as part
     where messages.session_id = ${sessions.id}
       and part->>'type' = 'text'
       and part->>'text' ilike ${pattern})`;
  return or(
    ilike(sessions.chatId, pattern),
    ilike(sessions.title, pattern),
    ilike(sessions.userId, pattern),
    ilike(people.name, pattern),
    ilike(people.username, usernamePattern),
    ilike(sessions.key, pattern),
    messageText,
  )!;
}

/** `%`, `_` and the escape character itself match literally (ILIKE's default escape is a backslash). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
