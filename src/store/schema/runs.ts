import { sql } from 'drizzle-orm';
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { sessions } from './sessions.js';

/** `budget_exceeded`: a daily budget was reached, so the model was not (or no longer) called (CONTRACT §14). */
export type RunStatus = 'completed' | 'failed' | 'cancelled' | 'budget_exceeded';

export const runs = pgTable(
  'runs',
  {
    /** The turn id chosen by the scheduler, never generated here: a retried turn carries the same id and is written once. */
    id: text('id').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    status: text('status').$type<RunStatus>().notNull(),
    /** The answer was NO_REPLY: stored, not sent. */
    silent: boolean('silent').notNull().default(false),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    iterations: integer('iterations').notNull().default(0),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    /** Prompt tokens read from / written to the provider's prompt cache (not included in `input_tokens`). */
    cacheReadTokens: bigint('cache_read_tokens', { mode: 'number' }).notNull().default(0),
    cacheWriteTokens: bigint('cache_write_tokens', { mode: 'number' }).notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** Platform ids of the messages that carried the reply. */
    deliveredMessageIds: jsonb('delivered_message_ids').$type<string[]>().notNull().default([]),
  },
  (table) => [
    check('runs_status_check', sql`${table.status} in ('completed', 'failed', 'cancelled', 'budget_exceeded')`),
    // the operator console: a session's turns and transcript runs, and usage by day
    index('runs_session_id_started_at_index').on(table.sessionId, table.startedAt),
    index('runs_started_at_index').on(table.startedAt),
  ],
);

export type RunRow = typeof runs.$inferSelect;
export type NewRunRow = typeof runs.$inferInsert;
