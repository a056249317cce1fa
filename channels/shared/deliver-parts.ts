import { setTimeout as sleep } from 'node:timers/promises';
import { BotError } from '../../src/core/errors.js';
import type { DeliveryProgress, PartInDoubt, SendHint, SettledPart } from '../../src/core/index.js';

/**
 * How long after its intent is recorded a send may still begin (normally it begins at once): a holder stalled in
 * between (a paused process, a starved event loop) gives the part up rather than send it after a takeover may have
 * settled it. Part of every recorded deadline.
 */
export const SEND_DISPATCH_WINDOW_MS = 3_000;
/** What a takeover adds to a recorded deadline before it concludes that a part it does not find was not sent. */
export const SEND_LANDING_MARGIN_MS = 2_000;

/** How one platform sends the parts of a stream, and finds a part an earlier holder may have sent. */
export interface PartSender<Part> {
  /**
   * What a takeover needs to find part `index` should this process die mid-send; recorded before the send.
   * It may do the work that leaves nothing visible yet (Slack's file upload before its completion).
   */
  hint(part: Part, index: number): SendHint | Promise<SendHint>;
  /**
   * With `deadline` (the intent recorded one: see `sendTimeoutMs`), whatever the send does must be done or given up
   * by then: a retry of its own (after a 429) may begin only while it can still end before it.
   */
  send(part: Part, index: number, hint: SendHint, deadline?: number): Promise<string>;
  /** A part in doubt: its id when the platform shows it went out (or took it again idempotently); no id: send it. */
  settle(part: Part, index: number, doubt: PartInDoubt): Promise<SettledPart>;
  /**
   * The platform call's timeout, at which `send` is aborted (its client's): with it each intent records a deadline
   * by which the send has landed or failed, and a takeover looks for the part until then before sending it again.
   */
  sendTimeoutMs?: number;
}

/**
 * Sends the parts after the ones `progress` lists as delivered, in order: a part in doubt is settled first,
 * each send is preceded by its recorded intent (which also records the ids out so far: one write a part), and
 * the ids are recorded once more at the end. Without `progress` the parts are simply sent.
 */
export async function deliverParts<Part>(parts: Part[], progress: DeliveryProgress | undefined, sender: PartSender<Part>): Promise<string[]> {
  const ids = [...(progress?.delivered ?? [])];
  const already = ids.length;
  for (let index = ids.length; index < parts.length; index += 1) {
    const part = parts[index] as Part;
    const doubt = progress?.inDoubt;
    if (progress && doubt?.part === index) {
      const settled = await settleInDoubt(sender, part, index, doubt);
      progress.resolved(settled.resolution);
      if (settled.id !== undefined) {
        ids.push(settled.id);
        continue;
      }
    }
    const hint = await sender.hint(part, index);
    const intentAt = Date.now();
    const deadline = progress && sender.sendTimeoutMs !== undefined ? intentAt + SEND_DISPATCH_WINDOW_MS + sender.sendTimeoutMs : undefined;
    // the intent's write is the holder's check, right before the send, that it still holds the turn (save-delivery.lua)
    await progress?.beforeSend([...ids], hint, deadline);
    if (deadline !== undefined && Date.now() - intentAt > SEND_DISPATCH_WINDOW_MS) {
      await progress?.sendEnded?.();
      throw new BotError('platform', 'the send could not begin within its window after its intent; not sent, the turn is tried again', { isRetryable: true });
    }
    try {
      ids.push(await sender.send(part, index, hint, deadline));
    } catch (error) {
      // refused, failed or aborted: nothing of it is on its way any more, a retry need not wait for its deadline
      if (deadline !== undefined) await progress?.sendEnded?.();
      throw error;
    }
  }
  if (progress && ids.length > already) await progress.onDelivered([...ids]);
  return ids;
}

/**
 * Settles a part an earlier holder left in doubt. Not found before the earlier send's deadline (plus a margin) has
 * passed, it may still land: the takeover waits until then and looks once more, so the late part is found
 * rather than sent twice.
 */
async function settleInDoubt<Part>(sender: PartSender<Part>, part: Part, index: number, doubt: PartInDoubt): Promise<SettledPart> {
  const settled = await sender.settle(part, index, doubt);
  if (settled.id !== undefined || settled.resolution !== 'not_sent' || doubt.deadline === undefined) return settled;
  const lookAgainAt = doubt.deadline + SEND_LANDING_MARGIN_MS;
  if (Date.now() >= lookAgainAt) return settled;
  // a timer runs on the monotonic clock and can fire a millisecond before the wall clock the deadline is on
  while (Date.now() < lookAgainAt) await sleep(lookAgainAt - Date.now());
  return sender.settle(part, index, doubt);
}
