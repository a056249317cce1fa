import { and, asc, eq, gte, sql } from 'drizzle-orm';
import type { ChatMessage } from '../core/chat-message.js';
import { rowsOf, type StoreDatabase } from './database.js';
import { messages, type SessionRow } from './schema/index.js';
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
  /** Attachments since the last `/new`: files received, bytes downloaded, transcriptions and their time. */
  media: MediaStats;
}

export interface MediaStats {
  files: number;
  bytes: number;
  transcriptions: number;
  transcriptionMs: number;
}

/** A turn never loads more than this many messages (turn/store-adapter.ts); neither does /status. */
const CONTEXT_LOAD_LIMIT = 500;

/**
 * What `/status` shows about a session; undefined when there is none. `conversation`: the session queue's (the
 * count of /new); one newer than the stored session's has nothing stored yet (a /new not followed by a turn).
 */
export async function sessionStats(db: StoreDatabase, key: string, conversation?: number): Promise<SessionStats | undefined> {
  const session = await findSession(db, key);
  if (!session) return undefined;
  if (conversation !== undefined && conversation > session.conversation) return freshConversation(session);
  const summary = await latestSummary(db, session.id);
  const fromSeq = Math.max(session.historyStartSeq, summary ? summary.coversUpToSeq + 1 : 0);
  const rows = await db
    .select({ role: messages.role, parts: messages.parts })
    .from(messages)
    // what a turn replays: messages left out of the context (a turn refused as too long) are not counted
    .where(and(eq(messages.sessionId, session.id), gte(messages.seq, fromSeq), eq(messages.omittedFromContext, false), eq(messages.conversation, session.conversation)))
    .orderBy(asc(messages.seq))
    .limit(CONTEXT_LOAD_LIMIT);
  const media = await mediaStats(db, session.id, session.historyStartSeq);
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
    media,
  };
}

function freshConversation(session: SessionRow): SessionStats {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, lastModel, compactionCount } = session;
  return {
    messageCount: 0,
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    costUsd,
    lastModel,
    compactionCount,
    context: { summary: undefined, messages: [] },
    media: { files: 0, bytes: 0, transcriptions: 0, transcriptionMs: 0 },
  };
}

/** From the messages' stored attachments and the runs' media spans (the runs of those messages). */
async function mediaStats(db: StoreDatabase, sessionId: string, fromSeq: number): Promise<MediaStats> {
  const [files] = rowsOf<{ files: number; bytes: number }>(
    await db.execute(sql`
      select count(*)::int as files, coalesce(sum(case when jsonb_typeof(file->'size') = 'number' then (file->>'size')::bigint end), 0)::float8 as bytes
        from messages m, jsonb_array_elements(m.attachments) as file
       where m.session_id = ${sessionId}::uuid and m.seq >= ${fromSeq} and m.attachments is not null`),
  );
  const [spans] = rowsOf<{ transcriptions: number; ms: number }>(
    await db.execute(sql`
      select count(*)::int as transcriptions, coalesce(sum(sp.duration_ms), 0)::float8 as ms
        from run_spans sp join runs r on r.id = sp.run_id
       where r.session_id = ${sessionId}::uuid and sp.kind = 'media' and sp.name = 'transcribe' and sp.error is null
         and exists (select 1 from messages m where m.run_id = r.id and m.seq >= ${fromSeq})`),
  );
  return { files: Number(files?.files ?? 0), bytes: Number(files?.bytes ?? 0), transcriptions: Number(spans?.transcriptions ?? 0), transcriptionMs: Number(spans?.ms ?? 0) };
}
