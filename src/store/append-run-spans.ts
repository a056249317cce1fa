import { desc, eq, isNotNull, and, sql } from 'drizzle-orm';
import type { TraceSpan } from '../core/trace-span.js';
import { rowsOf, type StoreDatabase } from './database.js';
import { amount, spanRow, toJson, whole } from './flush-turn-statement.js';
import { messages } from './schema/index.js';

/**
 * Adds model calls made for a turn after it was stored (a background summary and its memory flush) to that
 * run, in ONE statement: the spans after its last one, their tokens and cost to the run's and the session's
 * totals, so the console, `/usage` and the usage API count them. Nothing is written when the run is gone.
 * Compactions of a session are serialized by its summarize lock, so two appends never race for positions.
 */
export async function appendRunSpans(db: StoreDatabase, runId: string, spans: TraceSpan[]): Promise<{ written: boolean }> {
  if (spans.length === 0) return { written: false };
  const sum = (pick: (span: TraceSpan) => number | undefined) => spans.reduce((total, span) => total + whole(pick(span) ?? 0), 0);
  const usageOf = (span: TraceSpan) => (span.kind === 'llm' || span.kind === 'media' ? span.usage : undefined);
  const inputTokens = sum((span) => usageOf(span)?.inputTokens);
  const outputTokens = sum((span) => usageOf(span)?.outputTokens);
  const cacheReadTokens = sum((span) => usageOf(span)?.cacheReadTokens);
  const cacheWriteTokens = sum((span) => usageOf(span)?.cacheWriteTokens);
  const costUsd = spans.reduce((total, span) => total + amount((span.kind === 'llm' || span.kind === 'media' ? span.costUsd : 0) ?? 0), 0);
  const rows = toJson(spans.map(spanRow));
  const [result] = rowsOf<{ written: number }>(
    await db.execute(sql`
with updated_run as (
  update runs
     set input_tokens = input_tokens + ${inputTokens}::bigint,
         output_tokens = output_tokens + ${outputTokens}::bigint,
         cache_read_tokens = cache_read_tokens + ${cacheReadTokens}::bigint,
         cache_write_tokens = cache_write_tokens + ${cacheWriteTokens}::bigint,
         cost_usd = cost_usd + ${costUsd}::double precision
   where id = ${runId}::text
  returning id, session_id
),
updated_session as (
  update sessions
     set input_tokens = input_tokens + ${inputTokens}::bigint,
         output_tokens = output_tokens + ${outputTokens}::bigint,
         cache_read_tokens = cache_read_tokens + ${cacheReadTokens}::bigint,
         cache_write_tokens = cache_write_tokens + ${cacheWriteTokens}::bigint,
         cost_usd = cost_usd + ${costUsd}::double precision
   where id = (select session_id from updated_run)
),
inserted_spans as (
  insert into run_spans (run_id, position, kind, name, iteration, tool_call_id, started_at, duration_ms,
                         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, is_error,
                         error, output_preview, input, parent_tool_call_id, prompt_split)
  select updated_run.id,
         coalesce((select max(existing.position) from run_spans existing where existing.run_id = ${runId}::text), -1) + 1 + span.position,
         span.kind, span.name, span.iteration, span.tool_call_id, span.started_at, span.duration_ms, span.input_tokens,
         span.output_tokens, span.cache_read_tokens, span.cache_write_tokens, span.cost_usd, span.is_error, span.error,
         span.output_preview, span.input, span.parent_tool_call_id, span.prompt_split
    from updated_run,
         jsonb_populate_recordset(null::run_spans, ${rows}::text::jsonb) as span
)
select (select count(*) from updated_run)::integer as written`),
  );
  return { written: (result?.written ?? 0) > 0 };
}

/** The run whose messages the session stored last (by the `(session_id, seq)` index). */
export async function latestRunIdOf(db: StoreDatabase, sessionId: string): Promise<string | undefined> {
  const [latest] = await db
    .select({ runId: messages.runId })
    .from(messages)
    .where(and(eq(messages.sessionId, sessionId), isNotNull(messages.runId)))
    .orderBy(desc(messages.seq))
    .limit(1);
  return latest?.runId ?? undefined;
}
