import { and, desc, eq, gte, sql } from 'drizzle-orm';
import type { ChatType } from '../../core/inbound-message.js';
import type { StoreDatabase } from '../database.js';
import { people, runs, sessions } from '../schema/index.js';

export interface RunCounts {
  turns: number;
  completed: number;
  failed: number;
  cancelled: number;
  budgetExceeded: number;
  costUsd: number;
}

export interface RecentFailure {
  runId: string;
  startedAt: Date;
  error: string | null;
  sessionKey: string;
  channel: string;
  chatId: string;
  chatType: ChatType;
  title: string | null;
  userName: string | null;
  username: string | null;
}

export interface RunsOverview {
  /** Runs that started since `hourFrom`. */
  lastHour: RunCounts;
  /** Runs that started since `dayFrom` (the UTC day). */
  today: RunCounts;
  /** The latest failed runs since `hourFrom`, newest first. */
  failures: RecentFailure[];
}

const FAILURES_SHOWN = 5;

function counts(since: Date) {
  const from = sql`${runs.startedAt} >= ${since.toISOString()}::timestamptz`;
  const of = (status: string) => sql<number>`count(*) filter (where ${from} and ${runs.status} = ${status})`.mapWith(Number);
  return {
    turns: sql<number>`count(*) filter (where ${from})`.mapWith(Number),
    completed: of('completed'),
    failed: of('failed'),
    cancelled: of('cancelled'),
    budgetExceeded: of('budget_exceeded'),
    costUsd: sql<number>`coalesce(sum(${runs.costUsd}) filter (where ${from}), 0)`.mapWith(Number),
  };
}

/**
 * What the console's home page says about turns: two statements over `runs_started_at_index` (the counts of
 * the last hour and of the day in one pass, and the latest failures with what their chat is called).
 */
export async function runsOverview(db: StoreDatabase, range: { hourFrom: Date; dayFrom: Date }): Promise<RunsOverview> {
  const earliest = range.hourFrom < range.dayFrom ? range.hourFrom : range.dayFrom;
  const [totals, failures] = await Promise.all([
    db
      .select({ hour: counts(range.hourFrom), day: counts(range.dayFrom) })
      .from(runs)
      .where(gte(runs.startedAt, earliest)),
    db
      .select({
        runId: runs.id,
        startedAt: runs.startedAt,
        error: runs.error,
        sessionKey: sessions.key,
        channel: sessions.channel,
        chatId: sessions.chatId,
        chatType: sessions.chatType,
        title: sessions.title,
        userName: people.name,
        username: people.username,
      })
      .from(runs)
      .innerJoin(sessions, eq(sessions.id, runs.sessionId))
      .leftJoin(people, and(eq(people.channel, sessions.channel), eq(people.userId, sessions.userId)))
      .where(and(gte(runs.startedAt, range.hourFrom), eq(runs.status, 'failed')))
      .orderBy(desc(runs.startedAt))
      .limit(FAILURES_SHOWN),
  ]);
  const empty: RunCounts = { turns: 0, completed: 0, failed: 0, cancelled: 0, budgetExceeded: 0, costUsd: 0 };
  return { lastHour: totals[0]?.hour ?? empty, today: totals[0]?.day ?? empty, failures };
}
