import { sql } from 'drizzle-orm';
import { PROMPT_SPLIT_PARTS, type PromptSplit } from '../../core/trace-span.js';
import { rowsOf, type StoreDatabase } from '../database.js';

/** Where a session's prompts went, over every model call that recorded it, and what the provider counted for them. */
export interface SessionPromptSplit {
  calls: number;
  split: PromptSplit;
  /** The provider's input tokens of those calls: fresh, read from its cache and written to it. */
  reportedTokens: number;
  cacheReadTokens: number;
}

/** One aggregate over the session's LLM spans that carry a split (by run: the `runs_session_id_started_at` index). */
export async function sessionPromptSplit(db: StoreDatabase, sessionId: string): Promise<SessionPromptSplit> {
  const sums = PROMPT_SPLIT_PARTS.map((part) => sql.raw(`coalesce(sum((s.prompt_split->>'${part}')::bigint), 0)::bigint as "${part}"`));
  const [row] = rowsOf<Record<string, string | number>>(
    await db.execute(sql`
    select count(*)::integer as calls, ${sql.join(sums, sql`, `)},
           coalesce(sum(coalesce(s.input_tokens, 0) + coalesce(s.cache_read_tokens, 0) + coalesce(s.cache_write_tokens, 0)), 0)::bigint as reported,
           coalesce(sum(coalesce(s.cache_read_tokens, 0)), 0)::bigint as cache_read
      from run_spans s join runs r on r.id = s.run_id
     where r.session_id = ${sessionId}::uuid and s.kind = 'llm' and s.prompt_split is not null`),
  );
  const number = (value: string | number | undefined) => Number(value ?? 0);
  const split = Object.fromEntries(PROMPT_SPLIT_PARTS.map((part) => [part, number(row?.[part])])) as unknown as PromptSplit;
  return { calls: number(row?.calls), split, reportedTokens: number(row?.reported), cacheReadTokens: number(row?.cache_read) };
}
