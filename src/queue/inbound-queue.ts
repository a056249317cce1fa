import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { InboundMessage } from '../core/inbound-message.js';
import { chatSessionKeyOf, sessionKeyOf } from '../core/session-key.js';
import type { Logger } from '../observability/logger.js';
import type { RedisClient } from '../redis/redis-client.js';
import type { Claim, SessionQueue } from '../redis/session-queue.js';
import type { AbortBus } from './abort-bus.js';

export const INBOUND_QUEUE = 'inbound';
export const COMPACT_JOB = 'compact';

/** A BullMQ job of the `inbound` queue: a /compact request (messages themselves live in the session queue). */
export interface InboundJobData {
  sessionKey: string;
  /** The /compact message, whose user, chat and agent the summary is charged to. */
  requestedBy?: InboundMessage;
}

export type SubmitResult = { kind: 'queued'; sessionKey: string } | { kind: 'duplicate'; sessionKey: string };

/** The worker of the same process (ROLE=all), which may take a message's turn as it is enqueued. */
export interface LocalWorker {
  readonly workerId: string;
  readonly takesTurns: boolean;
  runClaimed(sessionKey: string, claim: Claim): void;
}

/**
 * Where the gateway hands messages over: each joins its session in the session queue (one script, one round trip;
 * a redelivery is a duplicate). The BullMQ `inbound` queue beside it carries the /compact jobs only (shown as
 * `compactions` in the queue view; its Pause pauses compactions, not turns: turns have their own, see TurnsPause).
 */
export class InboundQueue {
  readonly queue: Queue<InboundJobData>;
  #localWorker: LocalWorker | undefined;

  constructor(
    connection: RedisClient,
    bullmqPrefix: string,
    private readonly sessions: SessionQueue,
    private readonly abortBus: AbortBus,
    private readonly logger: Logger,
  ) {
    this.queue = new Queue<InboundJobData>(INBOUND_QUEUE, {
      connection,
      prefix: bullmqPrefix,
      defaultJobOptions: { attempts: 1, removeOnComplete: { age: 3_600, count: 5_000 }, removeOnFail: { age: 7 * 24 * 3_600 } },
    });
  }

  /**
   * A worker in this process: a message that finds its session idle becomes that worker's turn in the enqueue's
   * own round trip, instead of waking a worker (maybe this one) to look at the schedule and claim it.
   */
  setLocalWorker(worker: LocalWorker): void {
    this.#localWorker = worker;
  }

  async submit(message: InboundMessage): Promise<SubmitResult> {
    const sessionKey = sessionKeyOf(message);
    const worker = this.#localWorker?.takesTurns ? this.#localWorker : undefined;
    const enqueued = await this.sessions.enqueue(sessionKey, message, Date.now(), worker?.workerId);
    if (enqueued.kind === 'duplicate') return { kind: 'duplicate', sessionKey };
    // the turn runs in this process's worker; the webhook is answered at its first wait
    if (enqueued.kind === 'claimed') worker!.runClaimed(sessionKey, enqueued.claim);
    const chatSessionKey = chatSessionKeyOf(message);
    if (chatSessionKey !== sessionKey) {
      // off the acknowledgement path: a chat-level /stop reaches the thread's session through it
      void this.sessions.trackThreadSession(chatSessionKey, sessionKey).catch((error: unknown) => this.logger.warn({ err: error, sessionKey }, 'could not record the thread session'));
    }
    if (enqueued.kind === 'queued' && enqueued.running > 0 && this.sessions.modeOf(sessionKey) === 'interrupt') {
      const interrupted = await this.sessions.interrupt(sessionKey);
      await this.abortBus.publish(sessionKey, interrupted);
    }
    return { kind: 'queued', sessionKey };
  }

  /** /compact: a worker summarizes the session (the summarization lock keeps it to one at a time). */
  async addCompactionJob(sessionKey: string, requestedBy?: InboundMessage): Promise<void> {
    await this.queue.add(COMPACT_JOB, { sessionKey, ...(requestedBy ? { requestedBy } : {}) }, { jobId: `c.${randomUUID()}` });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
