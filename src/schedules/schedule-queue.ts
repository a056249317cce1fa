import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client.js';
import type { ScheduledTask } from './task-repository.js';

export const SCHEDULES_QUEUE = 'schedules';
export const FIRING_JOB = 'fire';

export interface FiringJobData {
  taskId: string;
}

/** BullMQ custom ids may not contain ':'; a one-shot's single firing has this id. */
export const oneShotJobId = (taskId: string): string => `at.${taskId}`;

/**
 * The BullMQ side of tasks: a job scheduler per repeating task (`pattern` + `tz`, or `every`), a delayed job per
 * one-shot. BullMQ keeps one pending job per scheduler, so a worker that was down finds one overdue firing, not a
 * burst (CONTRACT §12: one catch-up run); the regular time BullMQ schedules next may then be moments away, and
 * the firing worker skips it (catch-up.ts).
 */
export class ScheduleQueue {
  readonly queue: Queue<FiringJobData>;

  /** `prefix`: BullMQ's (one hash tag for all of its keys on a cluster, see KeySpace.bullmqPrefix). */
  constructor(connection: RedisClient, prefix: string) {
    this.queue = new Queue<FiringJobData>(SCHEDULES_QUEUE, {
      connection,
      prefix,
      defaultJobOptions: {
        attempts: 8,
        backoff: { type: 'exponential', delay: 2_000 },
        removeOnComplete: { age: 7 * 24 * 3_600, count: 10_000 },
        removeOnFail: { age: 7 * 24 * 3_600 },
      },
    });
  }

  /** Creates the task's firings in Redis; returns when the first one is due. */
  async arm(task: Pick<ScheduledTask, 'id' | 'kind' | 'schedule' | 'timezone'>, now = Date.now()): Promise<Date> {
    const data = { taskId: task.id };
    switch (task.kind) {
      case 'at': {
        const at = Date.parse(task.schedule);
        await this.queue.add(FIRING_JOB, data, { jobId: oneShotJobId(task.id), delay: Math.max(0, at - now) });
        return new Date(at);
      }
      case 'cron': {
        const job = await this.queue.upsertJobScheduler(task.id, { pattern: task.schedule, tz: task.timezone }, { name: FIRING_JOB, data });
        // cron times are whole seconds; the job's timestamp and delay come from two readings of BullMQ's clock
        return new Date(Math.round(((job?.timestamp ?? now) + (job?.opts.delay ?? 0)) / 1000) * 1000);
      }
      case 'every': {
        const every = Number(task.schedule) * 1000;
        // the first firing one interval from now, not at once
        const job = await this.queue.upsertJobScheduler(task.id, { every, startDate: now + every }, { name: FIRING_JOB, data });
        return new Date((job?.timestamp ?? now) + (job?.opts.delay ?? every));
      }
    }
  }

  /** Whether Redis still holds the task's pending firing (start-up re-arms tasks whose firing was lost with Redis). */
  async isArmed(task: Pick<ScheduledTask, 'id' | 'kind'>): Promise<boolean> {
    if (task.kind === 'at') return (await this.queue.getJob(oneShotJobId(task.id))) !== undefined;
    return (await this.queue.getJobScheduler(task.id)) !== undefined;
  }

  /** Removes the task's future firings; a firing already handed to the session still runs (the worker re-checks the task). */
  async disarm(task: Pick<ScheduledTask, 'id' | 'kind'>): Promise<void> {
    if (task.kind === 'at') {
      const job = await this.queue.getJob(oneShotJobId(task.id));
      if (job && (await job.isDelayed())) await job.remove().catch(() => undefined);
      return;
    }
    await this.queue.removeJobScheduler(task.id);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
