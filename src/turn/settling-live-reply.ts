import type { DeliveryReceipt, LiveReplyOptions } from '../core/channel.js';
import type { DeliveryProgress } from '../core/delivery-progress.js';

/** A live reply that knows whether it ever showed anything and settles exactly once (finish or discard). */
export interface SettlingLiveReply {
  readonly started: boolean;
  /** The status line while tools run (undefined: none); cleared by the answer's text as it is shown. */
  status(label: string | undefined): void;
  /**
   * The turn parks (an approval prompt is out): `line` is shown and the preview left in the chat, recorded in the
   * delivery record before this resolves, for the turn's next run to adopt; nothing of this reply follows.
   */
  park(line: string): Promise<void>;
  finish(finalMarkdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  discardUnlessFinished(): Promise<void>;
}

/** The live reply's options for a turn: `recorded` resolves once the preview shown so far is in the delivery record. */
export interface TurnPreviewOptions extends LiveReplyOptions {
  recorded?(): Promise<void>;
}
