import { and, eq, sql } from 'drizzle-orm';
import { chatKeyOfSessionKey } from '../core/session-key.js';
import type { StoreDatabase } from './database.js';
import { chatModels, sessions } from './schema/index.js';
import type { EnsureSessionInput } from './session-repository.js';

/**
 * `/model` for a whole chat (`modelChoice: chat`): the chat's chosen `provider:model`, or null to go back to the
 * agent's own. Turns read it with their session (session-snapshot.ts), so whoever writes it also moves the history
 * version of every session of the chat on (see sessionKeysOfChat).
 */
export async function chooseChatModel(db: StoreDatabase, chatKey: string, model: string | null): Promise<void> {
  if (model === null) {
    await db.delete(chatModels).where(eq(chatModels.chatKey, chatKey));
    return;
  }
  await db
    .insert(chatModels)
    .values({ chatKey, model })
    .onConflictDoUpdate({ target: chatModels.chatKey, set: { model, updatedAt: sql`now()` } });
}

/** The chat's chosen model (`provider:model`); undefined: none. */
export async function chatModelOf(db: StoreDatabase, chatKey: string): Promise<string | undefined> {
  const [row] = await db.select({ model: chatModels.model }).from(chatModels).where(eq(chatModels.chatKey, chatKey)).limit(1);
  return row?.model;
}

/** The stored sessions of the chat a session belongs to (its topics and threads, and the chat's own), by its index. */
export async function sessionKeysOfChat(db: StoreDatabase, session: Pick<EnsureSessionInput, 'key' | 'agentId' | 'channel' | 'accountId' | 'chatId'>): Promise<string[]> {
  const chatKey = chatKeyOfSessionKey(session.key);
  const rows = await db
    .select({ key: sessions.key })
    .from(sessions)
    .where(and(eq(sessions.channel, session.channel), eq(sessions.accountId, session.accountId), eq(sessions.chatId, session.chatId), eq(sessions.agentId, session.agentId)));
  // a DM's chat id is the same for the user's every session with the bot account; the key tells its chat apart
  return rows.map((row) => row.key).filter((key) => chatKeyOfSessionKey(key) === chatKey);
}
