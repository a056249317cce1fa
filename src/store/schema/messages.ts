import { sql } from 'drizzle-orm';
import { bigint, boolean, check, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { StoredAttachment } from '../../core/attachment.js';
import type { MessagePart, MessageRole } from '../../core/chat-message.js';
import { runs } from './runs.js';
import { sessions } from './sessions.js';

export const messages = pgTable(
  'messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    /** Position in the session, from `sessions.next_seq`: consecutive, each turn's messages contiguous. */
    seq: bigint('seq', { mode: 'number' }).notNull(),
    runId: text('run_id').references(() => runs.id, { onDelete: 'cascade' }),
    role: text('role').$type<MessageRole>().notNull(),
    parts: jsonb('parts').$type<MessagePart[]>().notNull(),
    /** The platform dedupe key of a user message. */
    inboundKey: text('inbound_key'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** A user message's files (kind, name, type, size, platform file id, outcome, transcript / extracted text). */
    attachments: jsonb('attachments').$type<StoredAttachment[]>(),
    /**
     * Kept in the record but never replayed to the model: the message belongs to a turn the model refused as too
     * long. Later turns see a short note in place of a user message and nothing of the rest (agent/history).
     */
    omittedFromContext: boolean('omitted_from_context').notNull().default(false),
    /** The conversation (count of `/new`, see sessions.conversation) of the turn that stored it. */
    conversation: integer('conversation').notNull().default(0),
  },
  // The unique index doubles as the (session_id, seq) index every history load walks.
  (table) => [
    uniqueIndex('messages_session_id_seq_index').on(table.sessionId, table.seq),
    check('messages_role_check', sql`${table.role} in ('user', 'assistant', 'tool')`),
  ],
);

export type MessageRow = typeof messages.$inferSelect;
export type NewMessageRow = typeof messages.$inferInsert;
