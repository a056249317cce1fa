import type { ChannelName, DeliveryProgress, DoubtResolution, PartInDoubt } from '../core/index.js';
import { BotError, errorMessage } from '../core/errors.js';
import { TurnAbortError } from '../core/turn-abort.js';
import type { TurnLease, TurnStatePort } from '../core/turn-ports.js';
import type { TurnRecord } from '../store/turn-record.js';

export type { TurnLease } from '../core/turn-ports.js';

/** A turn's computed result, kept between "answer computed" and "flushed to PostgreSQL". */
export interface PendingDelivery {
  record: TurnRecord;
  /** The reply to send (sanitized Markdown); empty for silent or cancelled turns. */
  reply: string;
  /** A notice (apology, refusal) sent as plain text rather than rendered Markdown. */
  plain: boolean;
  /** The session is due for summarization once this turn is stored. */
  summarizeDue?: boolean;
}

/** One stream of a turn's delivery: the ids of its parts out, and the part in flight when it was last written. */
export interface StreamState {
  sent: string[];
  doubt?: PartInDoubt;
}

/**
 * The streams of a turn: `answer` (the reply or notice), `live` (the preview a live reply showed),
 * `file:<toolCallId>` (send_file), `approval:<approvalId>` (an approval request), `abandoned` (the final message
 * of a turn that failed every round), `failing` (the one notice that a failing turn is being retried).
 */
export type StreamName = 'answer' | 'live' | 'abandoned' | 'failing' | `file:${string}` | `approval:${string}`;

/** What an earlier holder of the turn left: the computed answer (if it got that far) and every stream's state. */
export interface SavedDelivery {
  pending?: PendingDelivery;
  streams: Partial<Record<StreamName, StreamState>>;
}

/** A stream's progress, and the ids known to be out (a failed delivery stores what went out). */
export interface RecordedProgress extends DeliveryProgress {
  readonly recorded: string[];
  /** Parts this progress announced (sent, or about to be): 0 when everything came from an earlier holder. */
  readonly announced: number;
  /** Writes the ids out that a `deferDelivered` progress held back (nothing when there are none). */
  saveDeferred(): Promise<void>;
}

const RESULT = 'result';
const STREAM = 'stream:';

/**
 * A turn's delivery record (redis/turn-state.ts: one Redis hash beside the turn's lease, every write
 * fenced by the lease holder), as the turn uses it: a worker that dies anywhere between "answer computed" and
 * "flushed" is replaced by one that neither asks the model again nor sends a part twice (see DeliveryProgress).
 */
export class DeliveryRecords {
  constructor(
    private readonly store: TurnStatePort,
    /** Counts how parts in doubt were settled (metrics). */
    private readonly onDoubt: (channel: ChannelName, resolution: DoubtResolution, stream: string) => void = () => {},
  ) {}

  /** What an earlier holder left (read only for a resumed turn); undefined when it left nothing. */
  async load(sessionKey: string, turnId: string): Promise<SavedDelivery | undefined> {
    const fields = await this.store.delivery(sessionKey, turnId);
    if (Object.keys(fields).length === 0) return undefined;
    const streams: SavedDelivery['streams'] = {};
    for (const [field, value] of Object.entries(fields)) {
      if (field.startsWith(STREAM)) streams[field.slice(STREAM.length) as StreamName] = JSON.parse(value) as StreamState;
    }
    const raw = fields[RESULT];
    return { ...(raw ? { pending: revive(JSON.parse(raw) as PendingDelivery) } : {}), streams };
  }

  /** One stream's state, for a part sent during the model's run (a file, an approval request). */
  async stream(lease: TurnLease, stream: StreamName): Promise<StreamState | undefined> {
    const raw = await this.store.deliveryField(lease.sessionKey, lease.turnId, `${STREAM}${stream}`);
    return raw ? (JSON.parse(raw) as StreamState) : undefined;
  }

  /**
   * The progress of one stream, starting from `state`. `pending` (the computed answer) is written with the
   * stream's first write, so recording the answer costs no round trip of its own.
   */
  progress(options: {
    lease: TurnLease;
    stream: StreamName;
    channel: ChannelName;
    state?: StreamState | undefined;
    pending?: PendingDelivery;
    /**
     * The stream's last write (every part out, none in flight) is held back until `saveDeferred`: for the answer,
     * whose turn is stored right after and then needs no record. A worker dying in between leaves the last part
     * in doubt, which a takeover settles by asking the platform, as for a death mid-send.
     */
    deferDelivered?: boolean;
  }): RecordedProgress {
    const { lease, stream, channel } = options;
    let result = options.pending ? pendingJson(options.pending) : undefined;
    let recorded = [...(options.state?.sent ?? [])];
    let announced = 0;
    let deferred: string[] | undefined;
    let intent: StreamState | undefined;
    const write = async (state: StreamState): Promise<void> => {
      const fields: Record<string, string> = { [`${STREAM}${stream}`]: JSON.stringify(state), ...(result ? { [RESULT]: result } : {}) };
      let saved: 'ok' | 'lost' | 'expired';
      try {
        saved = await this.store.save(lease, fields, { intent: state.doubt !== undefined });
      } catch (error) {
        // Redis away: this holder is not known to hold the turn; nothing was sent for this part, the turn is tried again
        throw new BotError('storage', `the delivery record could not be written: ${errorMessage(error)}`, { cause: error, isRetryable: true });
      }
      if (saved === 'lost') throw new TurnAbortError('leaseLost');
      // the lease ran out or this worker stopped beating: another may take the turn over any moment; nothing is sent
      if (saved === 'expired') throw new BotError('storage', 'the turn’s lease ran out before a send; not sent, the turn is tried again', { isRetryable: true });
      result = undefined;
      recorded = state.sent;
      deferred = undefined;
    };
    const key = `${lease.turnId}.${stream}`;
    return {
      key,
      delivered: options.state?.sent ?? [],
      ...(options.state?.doubt ? { inDoubt: options.state.doubt } : {}),
      get recorded() {
        return recorded;
      },
      get announced() {
        return announced;
      },
      beforeSend: async (delivered, hint, deadline) => {
        announced += 1;
        intent = { sent: delivered, doubt: { part: delivered.length, hint, at: Date.now(), ...(deadline !== undefined ? { deadline } : {}) } };
        await write(intent);
      },
      sendEnded: async () => {
        const doubt = intent?.doubt;
        if (doubt?.deadline === undefined) return;
        await write({ sent: intent!.sent, doubt: { ...doubt, deadline: Math.min(doubt.deadline, Date.now()) } }).catch(() => undefined);
      },
      onDelivered: async (delivered) => {
        if (!options.deferDelivered) return write({ sent: delivered });
        deferred = delivered;
        recorded = delivered;
      },
      saveDeferred: async () => {
        if (deferred) await write({ sent: deferred });
      },
      resolved: (resolution) => this.onDoubt(channel, resolution, key),
    };
  }

  /** The progress of a stream that may have been begun by an earlier holder (read back first). */
  async resume(lease: TurnLease, stream: StreamName, channel: ChannelName): Promise<RecordedProgress> {
    return this.progress({ lease, stream, channel, state: await this.stream(lease, stream) });
  }

  /** Records the preview a live reply showed, so that a takeover edits it instead of leaving it behind. */
  async recordPreview(lease: TurnLease, messageId: string): Promise<void> {
    await this.store.save(lease, { [`${STREAM}live`]: JSON.stringify({ sent: [messageId] } satisfies StreamState) });
  }
}

/**
 * The computed turn as JSON, its dates as epoch milliseconds: a `Date` (its `toJSON`) keeps V8's JSON.stringify off
 * its fast path, 6.3 µs against 2.4 µs for a turn's record measured alone.
 */
function pendingJson(pending: PendingDelivery): string {
  const { record } = pending;
  const run = { ...record.run, startedAt: record.run.startedAt.getTime(), finishedAt: record.run.finishedAt.getTime() };
  const messages = record.messages.map((message) => ({ ...message, createdAt: message.createdAt.getTime() }));
  return JSON.stringify({ ...pending, record: { ...record, run, messages } });
}

/** JSON gave the dates back as epoch milliseconds (or, from an older record, ISO strings). */
function revive(pending: PendingDelivery): PendingDelivery {
  const { run } = pending.record;
  run.startedAt = new Date(run.startedAt);
  run.finishedAt = new Date(run.finishedAt);
  for (const message of pending.record.messages) message.createdAt = new Date(message.createdAt);
  return pending;
}
