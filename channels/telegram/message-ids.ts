import type { ConversationRef, SendHint } from '../../src/core/index.js';
import { targetOf } from './conversation-target.js';

/** Chats remembered; the oldest is forgotten past this (it only makes a later probe start further back). */
const MAX_CHATS = 10_000;

export type MessageIdWatermark = ReturnType<typeof createMessageIdWatermark>;

/**
 * The highest message ids this process has seen: per chat, and across private chats, where Telegram numbers the
 * messages of all of a bot's private chats from one counter (supergroups have a counter each). A part's intent
 * carries both as the lower bound of the id it will get, so a takeover probes from there (sent-probe.ts).
 */
export function createMessageIdWatermark() {
  const perChat = new Map<string, number>();
  let privateHigh = 0;

  function saw(chatId: number | string, messageId: number): void {
    if (!Number.isSafeInteger(messageId) || messageId <= 0) return;
    const chat = String(chatId);
    const known = perChat.get(chat) ?? 0;
    perChat.delete(chat);
    perChat.set(chat, Math.max(known, messageId));
    if (perChat.size > MAX_CHATS) perChat.delete(perChat.keys().next().value as string);
    if (isPrivate(chat)) privateHigh = Math.max(privateHigh, messageId);
  }

  return {
    saw,
    /**
     * The highest id a message in `to` may have now, as far as this process knows: the chat's, or any private chat's
     * (`sharedPrivateHigh`: what other processes have seen of the private chats' counter).
     */
    highest(to: ConversationRef, sharedPrivateHigh = 0): number {
      const chat = String(targetOf(to).chat_id);
      const own = perChat.get(chat) ?? 0;
      return isPrivate(chat) ? Math.max(own, privateHigh, sharedPrivateHigh) : own;
    },
    /** The highest id of the private chats' shared counter this process has seen. */
    privateHighest(): number {
      return privateHigh;
    },
    /** The intent's hint for the next message in `to`: `after` (this chat), `afterAny` (private chats: any chat). */
    hint(to: ConversationRef): SendHint {
      const chat = String(targetOf(to).chat_id);
      saw(chat, Number(to.messageId));
      const after = perChat.get(chat) ?? 0;
      return isPrivate(chat) && privateHigh > after ? { after, afterAny: privateHigh } : { after };
    },
  };
}

function isPrivate(chatId: string): boolean {
  return /^\d+$/.test(chatId);
}
