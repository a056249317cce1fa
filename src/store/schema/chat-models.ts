import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * `/model`'s choice for a whole chat (an agent's `modelChoice: chat`): every session of the chat (its Telegram
 * topics and Slack threads, those started later too) answers with it. No row: the agent's own model.
 * Read with the session by the turn's one snapshot statement (session-snapshot.ts).
 */
export const chatModels = pgTable('chat_models', {
  /** The chat's session key without a thread or topic: `agent:<agentId>:<channel>:<accountId>:group:<chatId>` or `…:dm:<userId>`. */
  chatKey: text('chat_key').primaryKey(),
  /** `provider:model`. */
  model: text('model').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type ChatModelRow = typeof chatModels.$inferSelect;
