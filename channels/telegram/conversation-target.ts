import type { ConversationRef } from '../../src/core/index.js';

/** The `chat_id` / `message_thread_id` pair that sends into a conversation (and its forum topic). */
export function targetOf(to: ConversationRef): { chat_id: number | string; message_thread_id?: number } {
  const chatId = /^-?\d+$/.test(to.chatId) ? Number(to.chatId) : to.chatId;
  return to.threadId !== undefined ? { chat_id: chatId, message_thread_id: Number(to.threadId) } : { chat_id: chatId };
}
