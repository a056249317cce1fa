/**
 * Exactly-once delivery, as the turn and the channels share it. A reply (or a notice, a file, an approval
 * request, a live preview) is a stream of parts; before the platform call that creates part N the channel has
 * the intent recorded (durably, fenced by the turn's lease), and after it the part's id. A worker killed in
 * between leaves the part "in doubt": whoever takes the turn over asks the platform whether it went out
 * (Telegram: a probe of the message ids after the last one known; Slack: the message's metadata in the
 * conversation's history; Feishu: the same `uuid` again, which Feishu answers with the first message) and sends
 * it only if it did not.
 */

/** What a takeover needs to find a part in doubt, per platform (opaque to the turn), e.g. Telegram's last known message id. */
export type SendHint = Record<string, string | number>;

/** A part whose send began and was never recorded as done: it may or may not be in the chat. */
export interface PartInDoubt {
  /** Index of the part in its stream. */
  part: number;
  hint: SendHint;
  /** When the intent was recorded (epoch ms): idempotency keys expire (Feishu's after an hour). */
  at: number;
  /**
   * By when (epoch ms) a send begun under this intent has landed or was given up: it may begin only within
   * SEND_DISPATCH_WINDOW_MS of `at` and is aborted at the platform call's timeout. Before it (plus a margin) a
   * takeover that does not find the part waits and looks again instead of concluding it was not sent.
   * Absent: the sender declares no timeout (or an older record).
   */
  deadline?: number;
}

/**
 * How a part in doubt was settled (`bot_deliveries_in_doubt_total{resolution}`): `found` the platform shows it
 * went out (not sent again); `not_sent` the platform shows it did not (sent now); `idempotent_resend` sent again
 * under the same idempotency key (the platform keeps one); `unverified_resend` nothing could tell, sent again (a
 * duplicate is possible: see the README's guarantees).
 */
export type DoubtResolution = 'found' | 'not_sent' | 'idempotent_resend' | 'unverified_resend';

/**
 * Resumable delivery of one stream of parts. Rendering and chunking are deterministic, so a takeover skips the
 * parts `delivered` lists and settles `inDoubt` before sending the rest.
 */
export interface DeliveryProgress {
  /** Names the stream, the same across takeovers (`<turnId>.<stream>`): Feishu's `uuid` and Slack's metadata derive from it. */
  readonly key: string;
  /** Ids of the parts already out, in order. */
  readonly delivered: string[];
  /** The part after `delivered` when an earlier holder began sending it and died before recording it. */
  readonly inDoubt?: PartInDoubt;
  /**
   * Records, in one write, the ids out so far and the intent to send the next part (index `delivered.length`)
   * with what a takeover needs to find it, and the send's `deadline` (see PartInDoubt). Throws when this holder is
   * no longer known to hold the turn (taken over, its lease run out or its worker no longer beating, Redis
   * unreachable): nothing may be sent then.
   */
  beforeSend(delivered: string[], hint: SendHint, deadline?: number): Promise<void>;
  /**
   * The send announced last ended without an id (refused, failed, timed out): nothing of it is on its way any more,
   * so its deadline is now (a takeover then waits only the margin). Best effort: a failed write keeps the deadline.
   */
  sendEnded?(): Promise<void>;
  /** Records the ids out (no part in flight). */
  onDelivered(delivered: string[]): Promise<void>;
  /** Counts how a part in doubt was settled. */
  resolved(resolution: DoubtResolution): void;
}

/** What `settle` learnt of a part in doubt: its id when it is in the chat (found, or sent again idempotently). */
export interface SettledPart {
  id?: string;
  resolution: DoubtResolution;
}
