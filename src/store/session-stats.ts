import { and, asc, eq, gte } from 'drizzle-orm';
import type { ChatMessage } from '../core/chat-message.js';
import type { StoreDatabase } from './database.js';
import { messages } from './schema/index.js';
import { findSession } from './session-repository.js';
import { latestSummary } from './summary-repository.js';

export interface SessionStats {
  /** Messages since the last `/new`. */
  messageCount: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  lastModel: string | null;
  compactionCount: number;
  /** What a turn loads now: the latest summary and the messages after it (the caller counts their tokens). */
  context: { summary: string | undefined; messages: ChatMessage[] };
}

/** A turn never loads more than this many messages (turn/store-adapter.ts); neither does /status. */
const CONTEXT_LOAD_LIMIT = 500;

/** What `/status` shows about a session; undefined when there is none. */
export async function sessionStats(db: StoreDatabase, key: string): Promise<SessionStats | undefined> {
  const session = await findSession(db, key);
  if (!session) return undefined;
  const summary = await latestSummary(db, session.id);
  const fromSeq = Math.max(session.historyStartSeq, summary ? summary.coversUpToSeq + 1 : 0);
  const rows = await db
    .select({ role: messages.role, parts: messages.parts })
    .from(messages)
    .where(and(eq(messages.sessionId, session.id), gte(messages.seq, fromSeq)))
    .orderBy(asc(messages.seq))
    .limit(CONTEXT_LOAD_LIMIT);
  return {
    // Seqs have no gaps, so the count is a subtraction.
    messageCount: session.nextSeq - session.historyStartSeq,
    inputTokens: session.inputTokens,
    outputTokens: session.outputTokens,
    cacheReadTokens: session.cacheReadTokens,
    cacheWriteTokens: session.cacheWriteTokens,
    costUsd: session.costUsd,
    lastModel: session.lastModel,
    compactionCount: session.compactionCount,
    context: { summary: summary?.summary, messages: rows },
  };
}
