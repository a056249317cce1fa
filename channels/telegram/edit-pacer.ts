/** Entries older than this many are dropped from the pacer's memory when it grows. */
const SWEEP_THRESHOLD = 256;

/**
 * When the next live edit may go out in a chat. Telegram's flood limits are per chat (about one
 * message a second, fewer in groups), so every live reply of a chat (several turns of one group may
 * stream at once) shares one pace; a 429's `retry_after` holds the whole chat back.
 */
export interface EditPacer {
  /**
   * Milliseconds until an edit may go out in this chat (0: now). With `replyId`, replies of one chat take
   * turns: the reply that had the last slot yields the next one to another reply that is waiting for it.
   */
  waitMs(chatKey: string, replyId?: string): number;
  /** An edit went out (or its answer came back): the next one waits a full interval from now. */
  took(chatKey: string, replyId?: string): void;
  /** The reply is done: it no longer waits for a slot. */
  leave(chatKey: string, replyId: string): void;
  /** Telegram asked the chat to wait. */
  holdOff(chatKey: string, ms: number): void;
}

export function createEditPacer(intervalMs: number): EditPacer {
  const nextAt = new Map<string, number>();
  /** Per chat: the reply that took the last slot, and the replies asking for one (when they last asked). */
  const lastTaker = new Map<string, string>();
  const waiting = new Map<string, Map<string, number>>();
  const othersWaiting = (chatKey: string, replyId: string): boolean => {
    const now = Date.now();
    for (const [id, askedAt] of waiting.get(chatKey) ?? []) if (id !== replyId && now - askedAt <= 2 * intervalMs + 100) return true;
    return false;
  };
  const pushBack = (chatKey: string, at: number): void => {
    nextAt.set(chatKey, Math.max(nextAt.get(chatKey) ?? 0, at));
    if (nextAt.size > SWEEP_THRESHOLD) {
      const now = Date.now();
      for (const [key, time] of nextAt) if (time <= now) nextAt.delete(key);
    }
  };
  return {
    waitMs(chatKey, replyId) {
      const at = nextAt.get(chatKey);
      let wait = at === undefined ? 0 : at - Date.now();
      if (wait <= 0 && at !== undefined) nextAt.delete(chatKey);
      if (replyId === undefined) return Math.max(0, wait);
      if (!waiting.has(chatKey)) waiting.set(chatKey, new Map());
      waiting.get(chatKey)!.set(replyId, Date.now());
      // the slot is free, but this reply had the last one and another is waiting: let that one go first
      if (wait <= 0 && lastTaker.get(chatKey) === replyId && othersWaiting(chatKey, replyId)) wait = Math.ceil(intervalMs / 2);
      return Math.max(0, wait);
    },
    took(chatKey, replyId) {
      if (replyId !== undefined) {
        lastTaker.set(chatKey, replyId);
        waiting.get(chatKey)?.delete(replyId);
      }
      pushBack(chatKey, Date.now() + intervalMs);
    },
    leave(chatKey, replyId) {
      const asking = waiting.get(chatKey);
      asking?.delete(replyId);
      if (asking?.size === 0) waiting.delete(chatKey);
      if (lastTaker.get(chatKey) === replyId) lastTaker.delete(chatKey);
    },
    holdOff: (chatKey, ms) => pushBack(chatKey, Date.now() + ms),
  };
}
