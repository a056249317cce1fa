import { sql } from 'drizzle-orm';
import { boolean, check, doublePrecision, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { PromptSplit } from '../../core/trace-span.js';
import { runs } from './runs.js';

export type RunSpanKind = 'llm' | 'tool' | 'approval' | 'media';

/** One LLM call, tool call or approval answer of a run, in the order the run made them. */
export const runSpans = pgTable(
  'run_spans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    kind: text('kind').$type<RunSpanKind>().notNull(),
    /** `provider:model` for an LLM call, the tool's name for a tool call. */
    name: text('name').notNull(),
    /** LLM spans only. */
    iteration: integer('iteration'),
    /** Tool spans only. */
    toolCallId: text('tool_call_id'),
    /** A sub-agent's span: the `spawn_agent` call it ran for (that call's `tool_call_id`). */
    parentToolCallId: text('parent_tool_call_id'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    inputTokens: integer('input_tokens'),
    outputTokens: integer('output_tokens'),
    cacheReadTokens: integer('cache_read_tokens'),
    cacheWriteTokens: integer('cache_write_tokens'),
    costUsd: doublePrecision('cost_usd'),
    isError: boolean('is_error').notNull().default(false),
    error: text('error'),
    outputPreview: text('output_preview'),
    /** The request messages as JSON, only with TRACE_VERBOSE. */
    input: text('input'),
    /** LLM spans of a turn's own calls: where the prompt went, in estimated tokens (see PromptSplit). */
    promptSplit: jsonb('prompt_split').$type<PromptSplit>(),
  },
  (table) => [
    uniqueIndex('run_spans_run_id_position_index').on(table.runId, table.position),
    check('run_spans_kind_check', sql`${table.kind} in ('llm', 'tool', 'approval', 'media')`),
  ],
);

export type RunSpanRow = typeof runSpans.$inferSelect;
export type NewRunSpanRow = typeof runSpans.$inferInsert;
