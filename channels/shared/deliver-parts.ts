import type { DeliveryProgress, PartInDoubt, SendHint, SettledPart } from '../../src/core/index.js';

/** How one platform sends the parts of a stream, and finds a part an earlier holder may have sent. */
export interface PartSender<Part> {
  /**
   * What a takeover needs to find part `index` should this process die mid-send; recorded before the send.
   * It may do the work that leaves nothing visible yet (Slack's file upload before its completion).
   */
  hint(part: Part, index: number): SendHint | Promise<SendHint>;
  send(part: Part, index: number, hint: SendHint): Promise<string>;
  /** A part in doubt: its id when the platform shows it went out (or took it again idempotently); no id: send it. */
  settle(part: Part, index: number, doubt: PartInDoubt): Promise<SettledPart>;
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
      const settled = await sender.settle(part, index, doubt);
      progress.resolved(settled.resolution);
      if (settled.id !== undefined) {
        ids.push(settled.id);
        continue;
      }
    }
    const hint = await sender.hint(part, index);
    await progress?.beforeSend([...ids], hint);
    ids.push(await sender.send(part, index, hint));
  }
  if (progress && ids.length > already) await progress.onDelivered([...ids]);
  return ids;
}
