import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { MessagePart, MessageRole } from '../../core/chat-message.js';
import type { PromptSplit } from '../../core/trace-span.js';
import type { StoreDatabase } from '../database.js';
import { messages, runs, runSpans, type RunStatus } from '../schema/index.js';

export interface TranscriptMessage {
  seq: number;
  role: MessageRole;
  parts: MessagePart[];
  createdAt: Date;
  runId: string | null;
}

export interface TranscriptSpan {
  position: number;
  /** `llm` and `tool` today; later kinds (approvals, downloads) are shown by kind and name. */
  kind: string;
  name: string;
  startedAt: Date;
  durationMs: number;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  isError: boolean;
  error: string | null;
  /** Tool spans: the start of the tool's output (a failed tool's error text is here). */
  outputPreview: string | null;
  /** Tool and approval spans: the model's id of the call. */
  toolCallId: string | null;
  /** A sub-agent's span: the id of the `spawn_agent` call it ran for. */
  parentToolCallId: string | null;
  /** LLM spans: prompt tokens read from and written to the provider's cache (not in `inputTokens`). */
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** LLM spans of the turn's own calls: where the prompt went (estimated tokens). */
  promptSplit: PromptSplit | null;
}

export interface TranscriptRun {
  id: string;
  status: RunStatus;
  silent: boolean;
  provider: string;
  model: string;
  iterations: number;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  error: string | null;
  spans: TranscriptSpan[];
}

export interface TranscriptQuery {
  limit: number;
  /** Continue after this message seq. */
  afterSeq?: number | undefined;
}

export interface TranscriptPage {
  messages: TranscriptMessage[];
  /** The runs the page's messages belong to, in start order, each with its spans in order. */
  runs: TranscriptRun[];
  /** The seq of the page's last message when more follow. */
  nextAfterSeq: number | undefined;
}

/** A page of a session's messages in order (by the `(session_id, seq)` index), with their runs and spans. */
export async function transcriptPage(db: StoreDatabase, sessionId: string, query: TranscriptQuery): Promise<TranscriptPage> {
  const rows = await db
    .select({ seq: messages.seq, role: messages.role, parts: messages.parts, createdAt: messages.createdAt, runId: messages.runId })
    .from(messages)
    .where(and(eq(messages.sessionId, sessionId), query.afterSeq === undefined ? undefined : gt(messages.seq, query.afterSeq)))
    .orderBy(asc(messages.seq))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const runIds = [...new Set(page.flatMap((message) => (message.runId ? [message.runId] : [])))];
  return {
    messages: page,
    runs: await runsWithSpans(db, runIds),
    nextAfterSeq: rows.length > query.limit ? page.at(-1)?.seq : undefined,
  };
}

async function runsWithSpans(db: StoreDatabase, runIds: string[]): Promise<TranscriptRun[]> {
  if (runIds.length === 0) return [];
  const [runRows, spanRows] = await Promise.all([
    db
      .select({
        id: runs.id,
        status: runs.status,
        silent: runs.silent,
        provider: runs.provider,
        model: runs.model,
        iterations: runs.iterations,
        startedAt: runs.startedAt,
        finishedAt: runs.finishedAt,
        durationMs: runs.durationMs,
        inputTokens: runs.inputTokens,
        outputTokens: runs.outputTokens,
        costUsd: runs.costUsd,
        error: runs.error,
      })
      .from(runs)
      .where(inArray(runs.id, runIds))
      .orderBy(asc(runs.startedAt), asc(runs.id)),
    db
      .select({
        runId: runSpans.runId,
        position: runSpans.position,
        kind: runSpans.kind,
        name: runSpans.name,
        startedAt: runSpans.startedAt,
        durationMs: runSpans.durationMs,
        inputTokens: runSpans.inputTokens,
        outputTokens: runSpans.outputTokens,
        costUsd: runSpans.costUsd,
        isError: runSpans.isError,
        error: runSpans.error,
        outputPreview: runSpans.outputPreview,
        toolCallId: runSpans.toolCallId,
        parentToolCallId: runSpans.parentToolCallId,
        cacheReadTokens: runSpans.cacheReadTokens,
        cacheWriteTokens: runSpans.cacheWriteTokens,
        promptSplit: runSpans.promptSplit,
      })
      .from(runSpans)
      .where(inArray(runSpans.runId, runIds))
      .orderBy(asc(runSpans.runId), asc(runSpans.position)),
  ]);
  const spansByRun = new Map<string, TranscriptSpan[]>();
  for (const { runId, ...span } of spanRows) spansByRun.set(runId, [...(spansByRun.get(runId) ?? []), span]);
  return runRows.map((run) => ({ ...run, spans: spansByRun.get(run.id) ?? [] }));
}
