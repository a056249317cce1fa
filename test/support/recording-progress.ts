import type { DeliveryProgress, DoubtResolution, PartInDoubt, SendHint } from '../../src/core/index.js';

export interface RecordingProgress extends DeliveryProgress {
  /** Every intent, in order: the ids out so far and the hint for the part about to be sent. */
  intents: Array<{ delivered: string[]; hint: SendHint }>;
  /** Every `onDelivered` report. */
  reports: string[][];
  resolutions: DoubtResolution[];
  /** What a takeover would find: the last intent as a part in doubt (or nothing in flight). */
  leftBehind(): { delivered: string[]; inDoubt?: PartInDoubt };
}

/**
 * A progress that records what a channel tells it, as the delivery record would, starting from what an earlier
 * attempt left (`delivered`, `inDoubt`).
 */
export function recordingProgress(options: { key?: string; delivered?: string[]; inDoubt?: PartInDoubt } = {}): RecordingProgress {
  const intents: RecordingProgress['intents'] = [];
  const reports: string[][] = [];
  const resolutions: DoubtResolution[] = [];
  let last: { delivered: string[]; inDoubt?: PartInDoubt } = { delivered: options.delivered ?? [], ...(options.inDoubt ? { inDoubt: options.inDoubt } : {}) };
  return {
    key: options.key ?? `turn-${Math.random().toString(36).slice(2)}.answer`,
    delivered: options.delivered ?? [],
    ...(options.inDoubt ? { inDoubt: options.inDoubt } : {}),
    intents,
    reports,
    resolutions,
    async beforeSend(delivered, hint) {
      intents.push({ delivered, hint });
      last = { delivered, inDoubt: { part: delivered.length, hint, at: Date.now() } };
    },
    async onDelivered(delivered) {
      reports.push(delivered);
      last = { delivered };
    },
    resolved(resolution) {
      resolutions.push(resolution);
    },
    leftBehind: () => last,
  };
}

/** Dies (throws) at the intent of part `part`, after the parts before it went out, as a killed worker would. */
export function dyingAt(progress: RecordingProgress, part: number): RecordingProgress {
  const beforeSend = progress.beforeSend.bind(progress);
  progress.beforeSend = async (delivered, hint) => {
    if (delivered.length === part) throw new Error('worker lost');
    await beforeSend(delivered, hint);
  };
  return progress;
}
