import { and, desc, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import type { ChannelName, ChatType } from '../../core/inbound-message.js';
import type { StoreDatabase } from '../database.js';
import { people, sessions } from '../schema/index.js';
import { escapeLike } from './sessions-query.js';

/** Rows a name search returns at most (the console filters lists already in memory with them). */
const MATCH_LIMIT = 1000;

export interface PersonName {
  channel: ChannelName;
  userId: string;
  name: string | null;
  username: string | null;
}

export interface ChatLocator {
  channel: ChannelName;
  accountId: string;
  chatId: string;
}

export interface ChatName extends ChatLocator {
  chatType: ChatType;
  /** The group's title; for a DM, the user's name and username. */
  title: string | null;
  userName: string | null;
  username: string | null;
  /** The chat's most recently active session (a chat may have several: agents, threads). */
  sessionKey: string;
  sessions: number;
}

/** `<channel>:<userId>`, as budgets name users. */
export const personKey = (person: { channel: string; userId: string }): string => `${person.channel}:${person.userId}`;
/** `<channel>:<accountId>:<chatId>`, as budgets name chats. */
export const chatKey = (chat: ChatLocator): string => `${chat.channel}:${chat.accountId}:${chat.chatId}`;

/** The stored names of these people, by `personKey` (one primary-key lookup each, one statement). */
export async function peopleNames(db: StoreDatabase, keys: ReadonlyArray<{ channel: ChannelName; userId: string }>): Promise<Map<string, PersonName>> {
  const found = new Map<string, PersonName>();
  if (keys.length === 0) return found;
  const byChannel = Map.groupBy(keys, (key) => key.channel);
  const rows = await db
    .select({ channel: people.channel, userId: people.userId, name: people.name, username: people.username })
    .from(people)
    .where(or(...[...byChannel].map(([channel, members]) => and(eq(people.channel, channel), inArray(people.userId, [...new Set(members.map((member) => member.userId))])))));
  for (const row of rows) found.set(personKey(row), row);
  return found;
}

/** What these chats are called, by `chatKey`, from their most recently active session (`sessions_channel_account_id_chat_id_index`). */
export async function chatNames(db: StoreDatabase, chats: readonly ChatLocator[]): Promise<Map<string, ChatName>> {
  const found = new Map<string, ChatName>();
  if (chats.length === 0) return found;
  const wanted = sql.join(
    chats.map((chat) => sql`(${chat.channel}::text, ${chat.accountId}::text, ${chat.chatId}::text)`),
    sql`, `,
  );
  const rows = await db
    .select({
      channel: sessions.channel,
      accountId: sessions.accountId,
      chatId: sessions.chatId,
      chatType: sessions.chatType,
      title: sessions.title,
      userName: people.name,
      username: people.username,
      sessionKey: sessions.key,
      sessions: sql<number>`count(*) over (partition by ${sessions.channel}, ${sessions.accountId}, ${sessions.chatId})`.mapWith(Number),
    })
    .from(sessions)
    .leftJoin(people, and(eq(people.channel, sessions.channel), eq(people.userId, sessions.userId)))
    .where(sql`(${sessions.channel}, ${sessions.accountId}, ${sessions.chatId}) in (${wanted})`)
    .orderBy(desc(sessions.updatedAt));
  // newest first: the first row of a chat is its latest session
  for (const row of rows) if (!found.has(chatKey(row))) found.set(chatKey(row), row);
  return found;
}

/**
 * The people and chats whose name, username or title contains `search` (case-insensitive; `@name` finds a
 * username), as `personKey`s and `chatKey`s: how a list of ids is searched by name.
 */
export async function namesMatching(db: StoreDatabase, search: string): Promise<{ people: Set<string>; chats: Set<string> }> {
  const pattern = `%${escapeLike(search)}%`;
  const usernamePattern = `%${escapeLike(search.replace(/^@/, ''))}%`;
  const [personRows, chatRows] = await Promise.all([
    db
      .select({ channel: people.channel, userId: people.userId })
      .from(people)
      .where(or(ilike(people.name, pattern), ilike(people.username, usernamePattern)))
      .limit(MATCH_LIMIT),
    db
      .selectDistinct({ channel: sessions.channel, accountId: sessions.accountId, chatId: sessions.chatId })
      .from(sessions)
      .leftJoin(people, and(eq(people.channel, sessions.channel), eq(people.userId, sessions.userId)))
      .where(or(ilike(sessions.title, pattern), ilike(people.name, pattern), ilike(people.username, usernamePattern)))
      .limit(MATCH_LIMIT),
  ]);
  return { people: new Set(personRows.map(personKey)), chats: new Set(chatRows.map(chatKey)) };
}
