import { bigint, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { sessions } from './sessions.js';

/** Compaction records a summary and the point it covers; it never deletes messages. */
export const summaries = pgTable(
  'summaries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    summary: text('summary').notNull(),
    /** The last seq the summary includes; history loads continue at the seq after it. */
    coversUpToSeq: bigint('covers_up_to_seq', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The conversation of the messages it summarizes: a summary that lands after `/new` is not the new one's. */
    conversation: integer('conversation').notNull().default(0),
  },
  (table) => [index('summaries_session_id_covers_up_to_seq_index').on(table.sessionId, table.coversUpToSeq)],
);

export type SummaryRow = typeof summaries.$inferSelect;
export type NewSummaryRow = typeof summaries.$inferInsert;
