import { and, asc, desc, eq, gte, sql } from 'drizzle-orm';
import type { MessagePart, MessageRole } from '../core/chat-message.js';
import type { StoreDatabase } from './database.js';
import { messages, sessions } from './schema/index.js';

export interface StoredMessage {
  seq: number;
  role: MessageRole;
  parts: MessagePart[];
  runId: string | null;
  createdAt: Date;
  /** Stored, but left out of the model's context (see agent/history/omitted-messages.ts). */
  omittedFromContext: boolean;
}

export interface LoadHistoryOptions {
  /** Usually the seq after the latest summary; never earlier than the session's history start. */
  fromSeq?: number;
  /** Only the last `limit` messages. */
  limit?: number;
}

/** The session's current conversation (sessions.conversation) in seq order, from max(history start, fromSeq). */
export async function loadHistory(db: StoreDatabase, sessionId: string, options: LoadHistoryOptions = {}): Promise<StoredMessage[]> {
  const query = db
    .select({
      seq: messages.seq,
      role: messages.role,
      parts: messages.parts,
      runId: messages.runId,
      createdAt: messages.createdAt,
      omittedFromContext: messages.omittedFromContext,
    })
    .from(messages)
    .innerJoin(sessions, eq(sessions.id, messages.sessionId))
    .where(
      and(
        eq(messages.sessionId, sessionId),
        gte(messages.seq, sql`greatest(${sessions.historyStartSeq}, ${options.fromSeq ?? 0})`),
        eq(messages.conversation, sessions.conversation),
      ),
    );
  if (options.limit === undefined) return query.orderBy(asc(messages.seq));
  const newestFirst = await query.orderBy(desc(messages.seq)).limit(options.limit);
  return newestFirst.reverse();
}
