import { and, eq, gte, sql } from 'drizzle-orm';
import type { StoreDatabase } from './database.js';
import { messages } from './schema/index.js';
import { findSession } from './session-repository.js';
import { latestSummary } from './summary-repository.js';

export interface SessionStats {
  /** Messages since the last `/new`. */
  messageCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  lastModel: string | null;
  compactionCount: number;
  /** Characters / 4 of what a turn loads now: the latest summary and the messages after it. */
  estimatedContextTokens: number;
}

const CHARACTERS_PER_TOKEN = 4;

/** What `/status` shows about a session; undefined when there is none. */
export async function sessionStats(db: StoreDatabase, key: string): Promise<SessionStats | undefined> {
  const session = await findSession(db, key);
  if (!session) return undefined;
  const summary = await latestSummary(db, session.id);
  const fromSeq = Math.max(session.historyStartSeq, summary ? summary.coversUpToSeq + 1 : 0);
  const [loaded] = await db
    .select({ characters: sql<string>`coalesce(sum(length(${messages.parts}::text)), 0)::text` })
    .from(messages)
    .where(and(eq(messages.sessionId, session.id), gte(messages.seq, fromSeq)));
  const characters = Number(loaded?.characters ?? 0) + (summary?.summary.length ?? 0);
  return {
    // Seqs have no gaps, so the count is a subtraction.
    messageCount: session.nextSeq - session.historyStartSeq,
    inputTokens: session.inputTokens,
    outputTokens: session.outputTokens,
    costUsd: session.costUsd,
    lastModel: session.lastModel,
    compactionCount: session.compactionCount,
    estimatedContextTokens: Math.ceil(characters / CHARACTERS_PER_TOKEN),
  };
}
