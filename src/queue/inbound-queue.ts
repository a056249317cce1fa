import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { InboundMessage } from '../core/inbound-message.js';
import { chatSessionKeyOf, sessionKeyOf } from '../core/session-key.js';
import type { Logger } from '../observability/logger.js';
import type { RedisClient } from '../redis/redis-client.js';
import type { SessionQueue } from '../redis/session-queue.js';
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

/**
 * Where the gateway hands messages over: each joins its session in the session queue (one script, one round trip;
 * a redelivery is a duplicate). The BullMQ `inbound` queue beside it carries the /compact jobs, and its paused
 * flag (bull-board's Pause) stops the workers from starting turns.
 */
export class InboundQueue {
  readonly queue: Queue<InboundJobData>;

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

  async submit(message: InboundMessage): Promise<SubmitResult> {
    const sessionKey = sessionKeyOf(message);
    const enqueued = await this.sessions.enqueue(sessionKey, message);
    if (enqueued.kind === 'duplicate') return { kind: 'duplicate', sessionKey };
    const chatSessionKey = chatSessionKeyOf(message);
    if (chatSessionKey !== sessionKey) {
      // off the acknowledgement path: a chat-level /stop reaches the thread's session through it
      void this.sessions.trackThreadSession(chatSessionKey, sessionKey).catch((error: unknown) => this.logger.warn({ err: error, sessionKey }, 'could not record the thread session'));
    }
    if (enqueued.running > 0 && this.sessions.modeOf(sessionKey) === 'interrupt') {
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
