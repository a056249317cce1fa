import type { ConversationRef, SendHint, Sighting } from '../../src/core/index.js';
import { targetOf } from './conversation-target.js';

/** Chats remembered; the oldest is forgotten past this (it only makes a later probe start further back). */
const MAX_CHATS = 10_000;
/** Private ids held until they are published; past this the older half goes (it only costs a later probe a few calls). */
const MAX_UNPUBLISHED = 20_000;
/** The tag of a user's message (any chat): never a part of the bot's. */
export const INBOUND_TAG = 'in';

export type MessageIdWatermark = ReturnType<typeof createMessageIdWatermark>;

/**
 * The highest message ids this process has seen: per chat, and across private chats, where Telegram numbers the
 * messages of all of a bot's private chats from one counter (supergroups have a counter each). A part's intent
 * carries both as the lower bound of the id it will get, so a takeover probes from there (sent-probe.ts).
 */
export function createMessageIdWatermark() {
  const perChat = new Map<string, number>();
  let privateHigh = 0;
  let unpublished: Sighting[] = [];

  /** `inbound`: a user's message (the bot's own are tagged with their chat). */
  function saw(chatId: number | string, messageId: number, inbound = false): void {
    if (!Number.isSafeInteger(messageId) || messageId <= 0) return;
    const chat = String(chatId);
    if (isPrivate(chat)) {
      if (unpublished.length >= MAX_UNPUBLISHED) unpublished = unpublished.slice(MAX_UNPUBLISHED / 2);
      unpublished.push({ value: messageId, tag: inbound ? INBOUND_TAG : chat });
    }
    const known = perChat.get(chat) ?? 0;
    perChat.delete(chat);
    perChat.set(chat, Math.max(known, messageId));
    if (perChat.size > MAX_CHATS) perChat.delete(perChat.keys().next().value as string);
    if (isPrivate(chat)) privateHigh = Math.max(privateHigh, messageId);
  }

  return {
    saw,
    /** A message an update brought (a user's, never the bot's own): its id is taken from the counter too. */
    sawInbound(chatId: number | string, messageId: number): void {
      saw(chatId, messageId, true);
    },
    /** The private chats' ids seen since the last call, each tagged with its chat (or as a user's message). */
    takeSightings(): Sighting[] {
      const taken = unpublished;
      unpublished = [];
      return taken;
    },
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
      // the message answered: a user's, or the bot's own (a click on its button), so tagged with its chat only
      saw(chat, Number(to.messageId));
      const after = perChat.get(chat) ?? 0;
      return isPrivate(chat) && privateHigh > after ? { after, afterAny: privateHigh } : { after };
    },
  };
}

export function isPrivate(chatId: string): boolean {
  return /^\d+$/.test(chatId);
}
