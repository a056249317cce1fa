import { randomUUID } from 'node:crypto';
import { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { InboundMessage } from '../core/inbound-message.js';
import { chatSessionKeyOf, sessionKeyOf } from '../core/session-key.js';
import type { Logger } from '../observability/logger.js';
import type { AbortBus } from './abort-bus.js';
import type { SessionScheduler } from './session-scheduler.js';

export const INBOUND_QUEUE = 'inbound';
export const COMPACT_JOB = 'compact';

/** What a job carries: only a wake-up for a session (the message itself waits in the scheduler). */
export interface InboundJobData {
  sessionKey: string;
  dedupeKey?: string;
  channel?: string;
  /** A `compact` job: the /compact message, whose user, chat and agent the summary is charged to. */
  requestedBy?: InboundMessage;
}

export type SubmitResult = { kind: 'queued'; sessionKey: string } | { kind: 'duplicate'; sessionKey: string };

/** BullMQ custom ids may not contain ':'. */
export function jobIdFor(dedupeKey: string): string {
  return `m.${dedupeKey.replaceAll(':', '.')}`;
}

export class InboundQueue {
  readonly queue: Queue<InboundJobData>;

  constructor(
    connection: Redis,
    prefix: string,
    private readonly scheduler: SessionScheduler,
    private readonly abortBus: AbortBus,
    private readonly logger: Logger,
    attempts = 12,
  ) {
    this.queue = new Queue<InboundJobData>(INBOUND_QUEUE, {
      connection,
      prefix,
      defaultJobOptions: {
        // 2 s doubling, capped at a minute by the worker's backoff strategy: about 7 minutes of retries,
        // long enough to ride out a database or provider outage (see TURN_RETRY in turn-worker.ts)
        attempts,
        backoff: { type: 'turn-retry' },
        removeOnComplete: { age: 3_600, count: 5_000 },
        removeOnFail: { age: 7 * 24 * 3_600 },
      },
    });
  }

  /** Registers the message with its session and adds a wake-up job; a redelivered message is a duplicate. */
  async submit(message: InboundMessage): Promise<SubmitResult> {
    const sessionKey = sessionKeyOf(message);
    const registered = await this.scheduler.enqueue(sessionKey, message);
    if (registered === 'duplicate') return { kind: 'duplicate', sessionKey };
    await this.queue.add(
      'message',
      { sessionKey, dedupeKey: message.dedupeKey, channel: message.conversation.channel },
      { jobId: jobIdFor(message.dedupeKey) },
    );
    // Off the acknowledgement path: until this lands a redelivery re-adds the same job id, which BullMQ ignores.
    void Promise.all([this.scheduler.markQueued(message), this.scheduler.trackThreadSession(chatSessionKeyOf(message), sessionKey)]).catch(
      (error: unknown) => this.logger.warn({ err: error, sessionKey }, 'could not record the queued message'),
    );
    if (this.scheduler.modeOf(sessionKey) === 'interrupt') {
      const interrupted = await this.scheduler.interrupt(sessionKey);
      await this.abortBus.publish(sessionKey, interrupted);
    }
    return { kind: 'queued', sessionKey };
  }

  /** A session has pending work but no job to carry it (its jobs finished early): add one. */
  async addWakeJob(sessionKey: string, delayMs = 0): Promise<void> {
    await this.queue.add('wake', { sessionKey }, { jobId: `w.${randomUUID()}`, ...(delayMs > 0 ? { delay: delayMs } : {}) });
  }

  /** /compact: a worker summarizes the session (the summarization lock keeps it to one at a time). */
  async addCompactionJob(sessionKey: string, requestedBy?: InboundMessage): Promise<void> {
    await this.queue.add(COMPACT_JOB, { sessionKey, ...(requestedBy ? { requestedBy } : {}) }, { jobId: `c.${randomUUID()}`, attempts: 1 });
  }

  /** Moves a parked (delayed) job to the front; tolerant of the job still being on its way to `delayed`. */
  async wake(jobId: string): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const job = await Job.fromId<InboundJobData>(this.queue, jobId);
      if (!job) return;
      const state = await job.getState();
      if (state === 'delayed') {
        try {
          await job.promote();
          return;
        } catch (error) {
          this.logger.debug({ err: error, jobId }, 'promote raced; retrying');
        }
      } else if (state !== 'active') {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    this.logger.warn({ jobId }, 'could not wake parked job; it wakes itself at its lease deadline');
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
