/** Entries older than this many are dropped from the pacer's memory when it grows. */
const SWEEP_THRESHOLD = 256;

/**
 * When the next live edit may go out in a chat. Telegram's flood limits are per chat (about one
 * message a second, fewer in groups), so every live reply of a chat (several turns of one group may
 * stream at once) shares one pace; a 429's `retry_after` holds the whole chat back.
 */
export interface EditPacer {
  /** Milliseconds until an edit may go out in this chat (0: now). */
  waitMs(chatKey: string): number;
  /** An edit went out (or its answer came back): the next one waits a full interval from now. */
  took(chatKey: string): void;
  /** Telegram asked the chat to wait. */
  holdOff(chatKey: string, ms: number): void;
}

export function createEditPacer(intervalMs: number): EditPacer {
  const nextAt = new Map<string, number>();
  const pushBack = (chatKey: string, at: number): void => {
    nextAt.set(chatKey, Math.max(nextAt.get(chatKey) ?? 0, at));
    if (nextAt.size > SWEEP_THRESHOLD) {
      const now = Date.now();
      for (const [key, time] of nextAt) if (time <= now) nextAt.delete(key);
    }
  };
  return {
    waitMs(chatKey) {
      const at = nextAt.get(chatKey);
      if (at === undefined) return 0;
      const wait = at - Date.now();
      if (wait > 0) return wait;
      nextAt.delete(chatKey);
      return 0;
    },
    took: (chatKey) => pushBack(chatKey, Date.now() + intervalMs),
    holdOff: (chatKey, ms) => pushBack(chatKey, Date.now() + ms),
  };
}
