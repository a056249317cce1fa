import type { ChannelName } from '../../core/inbound-message.js';
import { runStatement, type StoreDatabase } from '../database.js';

/** A stored turn as the queue view's completed tab lists it: no message text, only what the run recorded. */
export interface RecentRun {
  runId: string;
  status: string;
  sessionKey: string;
  channel: ChannelName;
  chatId: string;
  title: string | null;
  model: string | null;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  error: string | null;
}

/** The window the completed tab covers: the runs table keeps everything, the tab shows the last day. */
export const RECENT_RUNS_WINDOW_MS = 24 * 3600 * 1000;

// walks runs_started_at_index newest first; a page is `limit` rows from `offset`
const RECENT = `
select runs.id, runs.status, sessions.key, sessions.channel, sessions.chat_id, sessions.title, runs.model,
       runs.started_at, runs.finished_at, runs.duration_ms, runs.input_tokens, runs.output_tokens, runs.cost_usd, runs.error
  from runs join sessions on sessions.id = runs.session_id
 where runs.started_at >= $1::timestamptz
 order by runs.started_at desc
 offset $2::integer limit $3::integer`;

// bounded: a busy day's count stops at the cap rather than counting every row
const COUNT = `select count(*)::int as count from (select 1 from runs where started_at >= $1::timestamptz limit $2::integer) as recent`;

type Row = {
  id: string;
  status: string;
  key: string;
  channel: ChannelName;
  chat_id: string;
  title: string | null;
  model: string | null;
  started_at: Date | string;
  finished_at: Date | string;
  duration_ms: number | null;
  input_tokens: number | string;
  output_tokens: number | string;
  cost_usd: number | string;
  error: string | null;
};

/** The turns stored in the last day, newest first. */
export async function recentRuns(db: StoreDatabase, page: { offset: number; limit: number; now?: Date }): Promise<RecentRun[]> {
  const since = new Date((page.now ?? new Date()).getTime() - RECENT_RUNS_WINDOW_MS);
  const rows = await runStatement<Row>(db, RECENT, [since.toISOString(), Math.max(0, page.offset), Math.max(0, page.limit)]);
  return rows.map((row) => ({
    runId: row.id,
    status: row.status,
    sessionKey: row.key,
    channel: row.channel,
    chatId: row.chat_id,
    title: row.title,
    model: row.model,
    startedAt: new Date(row.started_at),
    finishedAt: new Date(row.finished_at),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    costUsd: Number(row.cost_usd),
    error: row.error,
  }));
}

/** How many turns were stored in the last day, counted up to `cap`. */
export async function recentRunCount(db: StoreDatabase, cap: number, now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - RECENT_RUNS_WINDOW_MS);
  const [row] = await runStatement<{ count: number }>(db, COUNT, [since.toISOString(), cap]);
  return Number(row?.count ?? 0);
}
