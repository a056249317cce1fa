import type { InboundMessage } from './inbound-message.js';

/** What the worker hands the turn runner: the messages a turn claimed, under a lease it holds. */
export interface TurnRequest {
  turnId: string;
  sessionKey: string;
  messages: InboundMessage[];
  signal: AbortSignal;
  /** The lease holder's token: a step is saved only while this holder still holds the turn. */
  holder: string;
  /** The turn ran before (requeued after a failure or a lost holder): it may be stored, checkpointed or delivered already. */
  resumed: boolean;
  /** 1 for the first run of this job, then 2, 3… */
  attempt: number;
  /** No retry follows a failure of this attempt: the runner must answer the user (apology) and record the failure. */
  finalAttempt: boolean;
  /**
   * True while this worker still holds the turn's lease (a renewal); false when it does not or Redis cannot be asked.
   * A part's send does not call it: the intent written right before each send is that check (save-delivery.lua).
   */
  holdsLease(): Promise<boolean>;
  /**
   * The session's history version when the turn was claimed (it moves on with every stored turn, /new and summary):
   * a history cached at another version is stale. Absent: unknown, load it.
   */
  historyVersion?: string;
  /**
   * The conversation (count of `/new`) the turn started in, as the session queue recorded it at the turn's first
   * claim: its history is that conversation's and its messages are stored in it. Absent: the stored session's.
   */
  conversation?: number | undefined;
}

export type TurnOutcome =
  | { kind: 'completed' | 'silent' | 'cancelled' | 'failed' | 'skipped' }
  /** Nothing was delivered or stored; the messages go back to the head of the session for another attempt. */
  | { kind: 'retry'; error: unknown }
  /**
   * A tool call waits for a person's approval: the turn keeps its place without a worker until an answer or `untilMs`.
   * `stopped` ends the turn instead when a /stop marked it before it could park (the queue's park finds the mark).
   */
  | { kind: 'parked'; untilMs: number; stopped: () => Promise<TurnOutcome> };

export type TurnRunner = (request: TurnRequest) => Promise<TurnOutcome>;

/**
 * A turn that failed every round of attempts: what the turn layer does to end it (the final message, failed record).
 * `triedForMs`: how long it was retried (from its first failure), when known.
 */
export type TurnAbandoner = (abandoned: {
  turnId: string;
  sessionKey: string;
  holder: string;
  messages: InboundMessage[];
  error: unknown;
  triedForMs?: number;
  conversation?: number | undefined;
}) => Promise<void>;

/**
 * A turn failing a retryable way is retried for up to `retryForMs` more: its user is told so once (delivered once
 * per turn, however often this is called), while `holder` still holds the turn.
 */
export type TurnFailingNotifier = (failing: { turnId: string; sessionKey: string; holder: string; messages: InboundMessage[]; retryForMs: number }) => Promise<void>;
