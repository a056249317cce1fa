import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import type { StoreDatabase } from '../store/database.js';
import { runs, sessions } from '../store/schema/index.js';

export interface UsageRow {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  agent: string;
  channel: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface UsageRange {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  until: Date;
}

const day = sql<string>`to_char(${runs.startedAt} at time zone 'UTC', 'YYYY-MM-DD')`;

/**
 * Tokens and cost of the runs that started in the range, per UTC day, agent and channel, in that order.
 * The range is on `runs.started_at` (`runs_started_at_index`); a run is counted on the day it started.
 */
export async function usageByDay(db: StoreDatabase, range: UsageRange): Promise<UsageRow[]> {
  return db
    .select({
      day,
      agent: sessions.agentId,
      channel: sessions.channel,
      inputTokens: sql<number>`sum(${runs.inputTokens})`.mapWith(Number),
      outputTokens: sql<number>`sum(${runs.outputTokens})`.mapWith(Number),
      costUsd: sql<number>`sum(${runs.costUsd})`.mapWith(Number),
    })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    .where(and(gte(runs.startedAt, range.from), lt(runs.startedAt, range.until)))
    .groupBy(day, sessions.agentId, sessions.channel)
    .orderBy(asc(day), asc(sessions.agentId), asc(sessions.channel));
}
