import { sql } from 'drizzle-orm';
import { bigint, check, doublePrecision, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { ChannelName, ChatType } from '../../core/inbound-message.js';

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** `agent:<agentId>:<channel>:<accountId>:dm:<userId>` or `…:group:<chatId>` (see core/session-key.ts). */
    key: text('key').notNull().unique(),
    agentId: text('agent_id').notNull(),
    channel: text('channel').$type<ChannelName>().notNull(),
    accountId: text('account_id').notNull(),
    chatId: text('chat_id').notNull(),
    chatType: text('chat_type').$type<ChatType>().notNull(),
    userId: text('user_id'),
    /**
     * The group's title as the platform sent it with the latest stored turn; for a DM none (see `people`), except a
     * conversation the platform titles (a Slack assistant thread): the title its first exchange gave it.
     */
    title: text('title'),
    /** The seq the next stored message gets; messages of a session are numbered 0, 1, 2… without gaps. */
    nextSeq: bigint('next_seq', { mode: 'number' }).notNull().default(0),
    /** `/new` moves this to `next_seq`: older messages stay stored but are no longer loaded. */
    historyStartSeq: bigint('history_start_seq', { mode: 'number' }).notNull().default(0),
    /**
     * The conversation of the newest stored turn: how many `/new` came before it (the session queue in Redis counts
     * them and gives each turn its number; see redis/lua/new-conversation.lua). Only messages of a turn's own
     * conversation are its history, whatever order late flushes arrive in.
     */
    conversation: integer('conversation').notNull().default(0),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    cacheReadTokens: bigint('cache_read_tokens', { mode: 'number' }).notNull().default(0),
    cacheWriteTokens: bigint('cache_write_tokens', { mode: 'number' }).notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    compactionCount: integer('compaction_count').notNull().default(0),
    lastModel: text('last_model'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('sessions_chat_type_check', sql`${table.chatType} in ('dm', 'group')`),
    // the operator console lists sessions by last activity, paged by (updated_at, id)
    index('sessions_updated_at_id_index').on(table.updatedAt, table.id),
    // the console finds a chat's sessions (budget rows, schedules) by the chat, across agents and threads
    index('sessions_channel_account_id_chat_id_index').on(table.channel, table.accountId, table.chatId),
  ],
);

export type SessionRow = typeof sessions.$inferSelect;
export type NewSessionRow = typeof sessions.$inferInsert;
