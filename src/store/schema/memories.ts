import { sql } from 'drizzle-orm';
import { bigint, customType, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** Long-term memory of a user (DM) or a group; survives `/new` and summaries (see src/memory). */
export const memories = pgTable(
  'memories',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** `dm:<channel>:<userId>` or `group:<channel>:<accountId>:<chatId>` (memory/memory-scope.ts). */
    scope: text('scope').notNull(),
    text: text('text').notNull(),
    /** Lower case, single spaces, no trailing punctuation: equal texts merge instead of piling up. */
    normalized: text('normalized').notNull(),
    search: tsvector('search').generatedAlwaysAs(sql`to_tsvector('simple'::regconfig, "memories"."text")`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('memories_scope_normalized_index').on(table.scope, table.normalized),
    index('memories_scope_created_at_index').on(table.scope, table.createdAt),
    index('memories_search_index').using('gin', table.search),
  ],
);

export type MemoryRow = typeof memories.$inferSelect;
