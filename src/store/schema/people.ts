import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { ChannelName } from '../../core/inbound-message.js';

/**
 * What the platforms call the people who write to the bot: the display name and username of a sender, as
 * its latest stored turn had them (written by the turn's flush statement, only when they changed). The
 * operator console shows and searches these instead of bare ids.
 */
export const people = pgTable(
  'people',
  {
    channel: text('channel').$type<ChannelName>().notNull(),
    /** The platform's user id (`Sender.id`), as in session keys and budget ids. */
    userId: text('user_id').notNull(),
    name: text('name'),
    username: text('username'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.channel, table.userId] })],
);

export type PersonRow = typeof people.$inferSelect;
