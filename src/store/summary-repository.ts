import { and, desc, eq, gte, sql } from 'drizzle-orm';
import type { StoreDatabase } from './database.js';
import { sessions, summaries, type SummaryRow } from './schema/index.js';

/**
 * Records a compaction: the summary, the last seq it covers and the conversation its messages are of (one that
 * lands after `/new` is not the new conversation's). Messages are never deleted.
 */
export async function saveSummary(db: StoreDatabase, sessionId: string, summary: string, coversUpToSeq: number, conversation = 0): Promise<SummaryRow> {
  return db.transaction(async (transaction) => {
    const [saved] = await transaction.insert(summaries).values({ sessionId, summary, coversUpToSeq, conversation }).returning();
    if (!saved) throw new Error(`summary for session ${sessionId} was not saved`);
    await transaction
      .update(sessions)
      .set({ compactionCount: sql`${sessions.compactionCount} + 1`, updatedAt: sql`now()` })
      .where(eq(sessions.id, sessionId));
    return saved;
  });
}

/** The newest summary of the current conversation; summaries from before the last `/new` do not count. */
export async function latestSummary(db: StoreDatabase, sessionId: string): Promise<SummaryRow | undefined> {
  const [latest] = await db
    .select({ summary: summaries })
    .from(summaries)
    .innerJoin(sessions, eq(sessions.id, summaries.sessionId))
    .where(and(eq(summaries.sessionId, sessionId), gte(summaries.coversUpToSeq, sessions.historyStartSeq), eq(summaries.conversation, sessions.conversation)))
    .orderBy(desc(summaries.coversUpToSeq), desc(summaries.createdAt))
    .limit(1);
  return latest?.summary;
}
