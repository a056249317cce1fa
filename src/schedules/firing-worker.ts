import { hostname } from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '../redis/redis-client.js';
import { sessionKeyOf } from '../core/session-key.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { InboundQueue } from '../queue/inbound-queue.js';
import type { StoreDatabase } from '../store/database.js';
import { firingIdOf, firingMessage } from './firing-message.js';
import { SCHEDULES_QUEUE, type FiringJobData, type ScheduleQueue } from './schedule-queue.js';
import { firstRunAfterCatchUp, isCatchUp } from './catch-up.js';
import { nextRunAfter } from './schedule-spec.js';
import { findTask, listActiveTasks, markDone, recordFiring, type ScheduledTask } from './task-repository.js';

export interface FiringWorkerOptions {
  connection: RedisClient;
  prefix: string;
  db: StoreDatabase;
  schedules: ScheduleQueue;
  inbound: InboundQueue;
  logger: Logger;
  metrics?: Metrics | undefined;
  clock?: () => number;
}

export type FiringResult = 'queued' | 'duplicate' | 'skipped';

/**
 * Turns due firings into session messages. The job only hands the firing to the session scheduler (fast); the
 * turn itself runs in the inbound workers with the session's ordering, slots and /stop. A worker that dies here
 * leaves the job stalled; the next worker re-submits it and the firing's dedupe key makes that a no-op.
 */
export class FiringWorker {
  readonly worker: Worker<FiringJobData, FiringResult>;
  readonly #clock: () => number;

  constructor(private readonly options: FiringWorkerOptions) {
    this.#clock = options.clock ?? Date.now;
    this.worker = new Worker<FiringJobData, FiringResult>(SCHEDULES_QUEUE, (job) => this.fire(job), {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: 4,
      name: `${hostname()}:${process.pid}`,
      lockDuration: 15_000,
      autorun: false,
    });
    this.worker.on('failed', (job, error) => options.logger.warn({ err: error, taskId: job?.data.taskId, jobId: job?.id }, 'scheduled firing failed'));
    this.worker.on('error', (error) => options.logger.warn({ err: error }, 'schedules worker error'));
  }

  start(): void {
    void this.worker.run().catch((error: unknown) => this.options.logger.error({ err: error }, 'schedules worker stopped'));
  }

  async fire(job: Job<FiringJobData>): Promise<FiringResult> {
    const { db, inbound, schedules, logger, metrics } = this.options;
    const task = await findTask(db, job.data.taskId);
    if (!task || task.status !== 'active') {
      // cancelled or paused meanwhile: this firing is dropped and nothing more is scheduled
      if (task && task.status !== 'paused') await schedules.disarm(task).catch(() => undefined);
      metrics?.scheduledFirings.inc({ result: 'skipped' });
      return 'skipped';
    }
    const now = this.#clock();
    // the slot's time (the same on every retry of this job): BullMQ delays each firing's job until it
    const slotAt = new Date(job.timestamp + (job.opts.delay ?? 0));
    const firingId = firingIdOf(job.id!);
    if (skippedAfterCatchUp(task, slotAt)) {
      metrics?.scheduledFirings.inc({ result: 'skipped' });
      logger.info({ taskId: task.id, firingId, skipBefore: task.skipBefore }, 'scheduled time skipped: within one period of a catch-up');
      return 'skipped';
    }
    const message = firingMessage(task, firingId, now);
    if (sessionKeyOf(message) !== task.sessionKey) logger.warn({ taskId: task.id, sessionKey: task.sessionKey }, 'a firing maps to another session than its task');
    const caughtUp = isCatchUp(task, slotAt.getTime(), now);
    const next = task.kind === 'at' ? undefined : caughtUp ? firstRunAfterCatchUp(task, slotAt.getTime(), now) : await this.#nextRun(task, now);
    await recordFiring(db, task.id, slotAt, next, caughtUp ? next : undefined);
    if (caughtUp) logger.info({ taskId: task.id, firingId, lateMs: now - slotAt.getTime(), next }, 'scheduled task caught up after missing its time');
    const submitted = await inbound.submit(message);
    if (task.kind === 'at') await markDone(db, task.id);
    metrics?.scheduledFirings.inc({ result: submitted.kind });
    logger.info({ taskId: task.id, firingId, sessionKey: submitted.sessionKey, result: submitted.kind }, 'scheduled task fired');
    return submitted.kind;
  }

  async #nextRun(task: Parameters<typeof nextRunAfter>[0] & { id: string }, now: number): Promise<Date | undefined> {
    const scheduler = await this.options.schedules.queue.getJobScheduler(task.id).catch(() => undefined);
    return scheduler?.next ? new Date(scheduler.next) : nextRunAfter(task, now);
  }

  /**
   * PostgreSQL is the truth: an active task whose firing Redis no longer holds (Redis lost its data) is armed
   * again. A task that is still armed is left alone, so an overdue firing waiting for this start is not replaced.
   */
  async rearmMissing(): Promise<number> {
    const { db, schedules, logger } = this.options;
    let rearmed = 0;
    for (const task of await listActiveTasks(db)) {
      if (await schedules.isArmed(task)) continue;
      if (task.kind === 'at' && task.lastRunAt) continue;
      await schedules.arm(task, this.#clock());
      rearmed++;
    }
    if (rearmed > 0) logger.warn({ rearmed }, 'scheduled tasks missing from Redis were armed again');
    return rearmed;
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}

/** Slack for the two clock readings behind a BullMQ time (a slot and its recorded copy may differ by a few ms). */
const SLOT_SLACK_MS = 500;

/**
 * A regular time that falls within one period of a catch-up is skipped (see catch-up.ts). A retry of the
 * catch-up itself (its slot is the recorded last run) is not.
 */
function skippedAfterCatchUp(task: ScheduledTask, slotAt: Date): boolean {
  if (task.kind === 'at' || !task.skipBefore) return false;
  if (task.lastRunAt && slotAt.getTime() <= task.lastRunAt.getTime()) return false;
  return slotAt.getTime() < task.skipBefore.getTime() - SLOT_SLACK_MS;
}
