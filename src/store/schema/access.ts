import { index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { ChannelName } from '../../core/inbound-message.js';

/** DM_POLICY=pairing: a one-time code given to an unknown user, approved by an operator (`cli pairing approve`). */
export const pairingRequests = pgTable(
  'pairing_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    code: text('code').notNull().unique(),
    channel: text('channel').$type<ChannelName>().notNull(),
    accountId: text('account_id').notNull(),
    userId: text('user_id').notNull(),
    userName: text('user_name'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
  },
  (table) => [
    index('pairing_requests_channel_expires_at_index').on(table.channel, table.expiresAt),
    index('pairing_requests_channel_user_id_index').on(table.channel, table.userId),
  ],
);

/** Users approved through pairing: allowed to DM the bot on that channel from then on. */
export const approvedSenders = pgTable(
  'approved_senders',
  {
    channel: text('channel').$type<ChannelName>().notNull(),
    userId: text('user_id').notNull(),
    userName: text('user_name'),
    pairingCode: text('pairing_code'),
    approvedAt: timestamp('approved_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.channel, table.userId] })],
);

export type PairingRequestRow = typeof pairingRequests.$inferSelect;
export type ApprovedSenderRow = typeof approvedSenders.$inferSelect;
