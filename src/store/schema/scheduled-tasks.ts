import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { ConversationRef } from '../../core/inbound-message.js';

export type ScheduleKind = 'at' | 'cron' | 'every';
export type ScheduledTaskStatus = 'active' | 'paused' | 'done' | 'cancelled';

/** The truth about scheduled tasks; BullMQ only drives their firings (see src/schedules). */
export const scheduledTasks = pgTable(
  'scheduled_tasks',
  {
    /** Short and typable: `/tasks cancel <id>`. */
    id: text('id').primaryKey(),
    /** The chat's session key without thread (core/session-key.ts chatSessionKeyOf): where `/tasks` lists and limits count. */
    chatKey: text('chat_key').notNull(),
    /** The session a firing runs in (the one that created the task). */
    sessionKey: text('session_key').notNull(),
    agentId: text('agent_id').notNull(),
    conversation: jsonb('conversation').$type<ConversationRef>().notNull(),
    threadKind: text('thread_kind').$type<'thread' | 'topic'>(),
    creatorId: text('creator_id').notNull(),
    creatorName: text('creator_name'),
    prompt: text('prompt').notNull(),
    kind: text('kind').$type<ScheduleKind>().notNull(),
    /** ISO time (`at`), five cron fields (`cron`) or seconds (`every`). */
    schedule: text('schedule').notNull(),
    timezone: text('timezone').notNull(),
    status: text('status').$type<ScheduledTaskStatus>().notNull().default('active'),
    nextRunAt: timestamp('next_run_at', { withTimezone: true }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    /** Set by a catch-up (a firing run late, after an outage): regular times before this one are skipped. */
    skipBefore: timestamp('skip_before', { withTimezone: true }),
    /** Why a paused task is paused (the bot was removed from the chat, a delivery found the chat gone). */
    pausedReason: text('paused_reason'),
    /** completed | silent | failed | cancelled | skipped: what the latest firing's turn came to. */
    lastOutcome: text('last_outcome'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('scheduled_tasks_kind_check', sql`${table.kind} in ('at', 'cron', 'every')`),
    check('scheduled_tasks_status_check', sql`${table.status} in ('active', 'paused', 'done', 'cancelled')`),
    index('scheduled_tasks_chat_key_status_index').on(table.chatKey, table.status),
  ],
);

export type ScheduledTaskRow = typeof scheduledTasks.$inferSelect;
export type NewScheduledTaskRow = typeof scheduledTasks.$inferInsert;
