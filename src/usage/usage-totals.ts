import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { ChannelName } from '../core/inbound-message.js';
import type { StoreDatabase } from '../store/database.js';
import { runs, sessions } from '../store/schema/index.js';

/** Whose runs: one user's direct messages (every account and agent of a channel), or one group chat (all its threads). */
export type UsageOwner =
  | { kind: 'user'; channel: ChannelName; userId: string }
  | { kind: 'chat'; channel: ChannelName; accountId: string; chatId: string };

export interface UsageTotals {
  /** Prompt tokens, cache reads and writes included. */
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  turns: number;
}

/** Sums of the stored runs that started in [from, to). */
export async function usageTotals(db: StoreDatabase, owner: UsageOwner, from: Date, to: Date): Promise<UsageTotals> {
  const whose: SQL[] =
    owner.kind === 'user'
      ? [eq(sessions.channel, owner.channel), eq(sessions.chatType, 'dm'), eq(sessions.userId, owner.userId)]
      : [eq(sessions.channel, owner.channel), eq(sessions.chatType, 'group'), eq(sessions.accountId, owner.accountId), eq(sessions.chatId, owner.chatId)];
  const [row] = await db
    .select({
      inputTokens: sql<string>`coalesce(sum(${runs.inputTokens} + ${runs.cacheReadTokens} + ${runs.cacheWriteTokens}), 0)`,
      outputTokens: sql<string>`coalesce(sum(${runs.outputTokens}), 0)`,
      costUsd: sql<string>`coalesce(sum(${runs.costUsd}), 0)`,
      turns: sql<string>`count(*)`,
    })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    .where(and(...whose, gte(runs.startedAt, from), lt(runs.startedAt, to)));
  return { inputTokens: Number(row?.inputTokens ?? 0), outputTokens: Number(row?.outputTokens ?? 0), costUsd: Number(row?.costUsd ?? 0), turns: Number(row?.turns ?? 0) };
}
