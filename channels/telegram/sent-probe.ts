import { GrammyError, type Api } from 'grammy';
import type { InlineKeyboardMarkup, Message } from 'grammy/types';
import type { ConversationRef, SendHint, SettledPart } from '../../src/core/index.js';
import { targetOf } from './conversation-target.js';
import { toPlatformError } from './errors.js';

/**
 * Message ids probed after the intent's lower bound, and past the highest id this process knows now: the
 * bot's private chats share one counter, so under load many ids are taken between an intent and its send.
 */
export const PROBE_WINDOW = 20;
/**
 * How long one search's own probing goes on (not its wait for other searches' rounds), and the most ids it probes:
 * a range longer than that (a busy bot whose part took an id far past its intent's bound) is searched only so
 * far, and a part not found there is sent again as an unverified resend, a possible duplicate, not as one known
 * not to have been sent. Bounded by time, the search reaches as far as the API lets it: Telegram answers about
 * 30 calls a second before it asks to wait, a local double hundreds.
 */
export const PROBE_LIMITS = { budgetMs: 30_000, maxIds: 5_000 };
/** Probes in flight at once in one round of a search (in id order; the first match wins). */
export const PROBE_PARALLEL = 8;
/** Rounds in flight at once per bot, across every search of the process. */
export const PROBE_ROUNDS_AT_ONCE = 4;
/** One probe call may take this long: a round holds up every other search of the process while it runs. */
const PROBE_CALL_TIMEOUT_MS = 10_000;
/** grammY types a call's signal as the abort-controller polyfill's; Node's own is what it gets and passes to fetch. */
const probeTimeout = () => AbortSignal.timeout(PROBE_CALL_TIMEOUT_MS) as unknown as Parameters<Api['editMessageReplyMarkup']>[3];
/** Put on a candidate for a moment: the edit's answer is the message itself, which the Bot API has no other way to read. */
const PROBE_MARKUP: InlineKeyboardMarkup = { inline_keyboard: [[{ text: '…', callback_data: 'delivery-probe' }]] };

export type SentProbe = ReturnType<typeof createSentProbe>;

/** What a search knows of the bot's message ids, from this process and (shared-watermark.ts) the others. */
export interface MessageIdView {
  /** The highest id a message in `to` may have now. */
  highest(to: ConversationRef): number | Promise<number>;
  /** Ids from `from` to `through` known to be no part of `to` (other chats', users' messages): not tried. */
  othersIds?(to: ConversationRef, from: number, through: number): Promise<Set<number>>;
  /** How long until every process has published what it had seen at a given moment (0: nothing is published). */
  publishedWithinMs?: number;
}

/**
 * Telegram has no idempotency key and no way to read a message back, so a part a dead worker may have sent is
 * looked for: each id after the intent's lower bounds gets `editMessageReplyMarkup` with a one-button keyboard.
 * A message of another chat or one that does not exist answers "message to edit not found", a user's message
 * "message can't be edited", and a message of the bot comes back whole (text, caption, file): when it is the
 * part, the part was sent. The keyboard is taken off again at once (or put back: an approval request's own).
 */
export function createSentProbe(api: Api, view: MessageIdView, limits = PROBE_LIMITS) {
  // A worker's death leaves many parts in doubt, and their searches start at once: unbounded, they share the API
  // (Telegram limits a bot's calls as a whole; under load a double or a proxy slows them all), every round of each
  // gets slower and each runs out of its budget. At most PROBE_ROUNDS_AT_ONCE rounds run at once instead, in arrival
  // order, and a search's budget counts only its own rounds, so one that waits for the others is not cut short.
  const waiting: Array<() => void> = [];
  let running = 0;
  async function inTurn<T>(round: () => Promise<T>): Promise<T> {
    if (running >= PROBE_ROUNDS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await round();
    } finally {
      // the slot passes straight to the next waiting round, or is freed
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  }

  async function read(chatId: number | string, messageId: number): Promise<Message | undefined> {
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      try {
        const result = await api.editMessageReplyMarkup(chatId, messageId, { reply_markup: PROBE_MARKUP }, probeTimeout());
        return typeof result === 'object' ? result : undefined;
      } catch (error) {
        if (!(error instanceof GrammyError) || error.error_code !== 400) throw toPlatformError(error, 'editMessageReplyMarkup');
        if (!/message is not modified/i.test(error.description)) return undefined;
        // the probe button is on it already (a probe that died before taking it off): off, then read again
        await api.editMessageReplyMarkup(chatId, messageId, {}, probeTimeout()).catch(() => undefined);
      }
    }
    return undefined;
  }

  /** Reads each candidate (in parallel) and takes the probe button off again; the first that `matches`, if any. */
  async function probeAll(chatId: number | string, candidates: number[], matches: (message: Message) => boolean, keep?: InlineKeyboardMarkup): Promise<number | undefined> {
    const messages = await Promise.all(candidates.map((id) => read(chatId, id)));
    let found: number | undefined;
    await Promise.all(
      candidates.map(async (id, index) => {
        const message = messages[index];
        if (message === undefined) return;
        const match = found === undefined && matches(message);
        if (match) found = id;
        await api.editMessageReplyMarkup(chatId, id, match && keep ? { reply_markup: keep } : {}, probeTimeout()).catch(() => undefined);
      }),
    );
    return found;
  }

  return {
    /**
     * How a part in doubt stands: `found` (its id) when a message of the bot after the hint's bound `matches`
     * (`keep`: the markup it carries when sent); `not_sent` when every id it could have has been looked at;
     * `unverified_resend` when the search stopped short of the highest id it could have.
     */
    async settle(to: ConversationRef, hint: SendHint, matches: (message: Message) => boolean, keep?: InlineKeyboardMarkup): Promise<SettledPart> {
      const chatId = targetOf(to).chat_id;
      // both bounds are ids the bot's counter gave out before the intent (this chat's, and any private chat's):
      // the part's id is past the higher one, and searching from the lower one may spend every probe short of it
      const bounds = [hint.after, hint.afterAny].filter((bound): bound is number => typeof bound === 'number');
      if (bounds.length === 0) return { resolution: 'unverified_resend' };
      const start = Math.max(...bounds);
      const began = Date.now();
      /** Time this search's own rounds took (not the time it waited for other searches' rounds). */
      let spent = 0;
      const reachNow = async () => Math.max(start, await view.highest(to)) + PROBE_WINDOW;
      let reach = await reachNow();
      const others = (await view.othersIds?.(to, start + 1, reach)) ?? new Set<number>();
      let next = start + 1;
      let probed = 0;
      /** Looks on up to `reach`: the part when found, `unverified_resend` when stopped short, undefined when every id was looked at. */
      const lookOn = async (): Promise<SettledPart | undefined> => {
        while (next <= reach && probed < limits.maxIds && spent < limits.budgetMs) {
          const candidates: number[] = [];
          for (; next <= reach && candidates.length < Math.min(PROBE_PARALLEL, limits.maxIds - probed); next += 1) {
            if (!others.has(next)) candidates.push(next);
          }
          probed += candidates.length;
          const found = await inTurn(async () => {
            const roundBegan = Date.now();
            try {
              return await probeAll(chatId, candidates, matches, keep);
            } finally {
              spent += Date.now() - roundBegan;
            }
          });
          if (found !== undefined) return { id: String(found), resolution: 'found' };
        }
        return next <= reach ? { resolution: 'unverified_resend' } : undefined;
      };
      const first = await lookOn();
      if (first) return first;
      // Every id it could have had is looked at, as far as the processes had published when the search began. One
      // that saw the part's id (or one past it) may not have published it yet: wait until all have, and look once
      // more up to what they published (the ids taken since the search began are searched too, but skipped once
      // seen in other chats; looking again after that would chase a counter that never stops).
      const wait = began + (view.publishedWithinMs ?? 0) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const further = await reachNow();
      if (further > reach) {
        for (const id of (await view.othersIds?.(to, reach + 1, further)) ?? []) others.add(id);
        reach = further;
        const second = await lookOn();
        if (second) return second;
      }
      return { resolution: 'not_sent' };
    },
  };
}

/** Text as a reader sees it, for comparing a probed message with the part that was to be sent. */
export function sameText(a: string | undefined, b: string): boolean {
  const normal = (text: string) => text.replace(/\s+/g, ' ').trim();
  return a !== undefined && normal(a) === normal(b);
}
