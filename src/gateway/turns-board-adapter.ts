import { BaseAdapter } from '@bull-board/api/dist/queueAdapters/base.js';
import type {
  AppJobScheduler,
  JobCleanStatus,
  JobCounts,
  JobSchedulerUpdateResult,
  JobState,
  JobStatus,
  QueueJob,
  QueueJobJson,
  QueueMetrics,
  QueueWorker,
  Status,
} from '@bull-board/api/dist/types.js';
import type { DeadLetters, QueueSnapshot, SessionQueueReader, TurnsPause } from '../redis/index.js';
import { completedJob, deadLetterJob, snapshotJobs, workerLabel, type TurnJob, type TurnJobOptions } from './turns-board-jobs.js';
import type { RecentRun } from '../store/index.js';

export const TURNS_QUEUE = 'turns';

export interface TurnsBoardOptions {
  reader: SessionQueueReader;
  deadLetters: DeadLetters;
  pause: TurnsPause;
  readOnly: boolean;
  /** ADMIN_SHOW_MESSAGE_TEXT. */
  showText: boolean;
  leaseMs: number;
  limitFor(sessionKey: string): number;
  /** The turns stored in the last day, newest first (the completed tab; read from the runs table on demand). */
  recent?: { list(offset: number, limit: number): Promise<RecentRun[]>; count(): Promise<number> };
}

/** What the board cannot do to the session queue, said to the operator instead of done half-way. */
class Refused extends Error {}

/** How long one read of the queue answers the board's requests (a page load makes three at once). */
const SNAPSHOT_REUSE_MS = 250;

const JOB_STATUSES = ['active', 'waiting', 'delayed', 'failed', 'paused'] as const satisfies readonly JobStatus[];

/** The completed tab counts the last day's turns up to this many. */
export const RECENT_COUNT_CAP = 10_000;

/**
 * The session queue in bull-board, through its adapter interface for queues that are not BullMQ (as groupmq shows its
 * groups): one `turns` entry whose tabs are the turns running or parked (`active`), the messages waiting per session
 * in the order they run (`waiting`, or `paused` while turns are paused), those waiting out a debounce, an album, a
 * retry's backoff or the placement grace (`delayed`), the dead letters (`failed`: Retry runs the messages again
 * once, at the head of their session; Discard drops them) and the last day's stored turns (`completed`). Read when the page asks, bounded by the reader.
 * Pause/resume is the turns pause every worker obeys. ADMIN_READONLY: bull-board offers and accepts no action.
 */
export class TurnsBoardAdapter extends BaseAdapter {
  /** One page load asks for the counts, the jobs and the workers at once: they share one read of the queue. */
  #snapshot: { at: number; read: Promise<QueueSnapshot> } | undefined;

  constructor(private readonly options: TurnsBoardOptions) {
    super('bullmq', {
      readOnlyMode: options.readOnly,
      allowRetries: !options.readOnly,
      allowCompletedRetries: false,
      displayName: 'turns (session queue)',
      description: 'Every turn: running, parked on an approval, messages waiting per session, delayed, and failed after every retry (dead letters)',
    });
  }

  getName(): string {
    return TURNS_QUEUE;
  }

  getStatuses(): Status[] {
    return ['latest', ...this.getJobStatuses()];
  }

  getJobStatuses(): JobStatus[] {
    return this.options.recent ? [...JOB_STATUSES, 'completed'] : [...JOB_STATUSES];
  }

  async getJobCounts(): Promise<JobCounts> {
    const [jobs, failed, completed] = await Promise.all([this.liveJobs(), this.options.deadLetters.count(), this.options.recent?.count() ?? 0]);
    const counts: JobCounts = { active: 0, waiting: 0, delayed: 0, failed, paused: 0, completed };
    for (const job of jobs) counts[job.state] = (counts[job.state] ?? 0) + 1;
    return counts;
  }

  /** One tab: its page `start`..`end`; several ('latest'): the first page of each. */
  async getJobs(statuses: JobStatus[], start = 0, end = 49): Promise<QueueJob[]> {
    const [from, to] = statuses.length > 1 ? [0, end - start] : [start, end];
    const live = statuses.some((status) => status !== 'failed' && status !== 'completed') ? await this.liveJobs() : [];
    const jobs: TurnJob[] = [];
    for (const status of statuses) {
      if (status === 'completed') {
        const runs = (await this.options.recent?.list(from, to - from + 1)) ?? [];
        jobs.push(...runs.map(completedJob));
      } else if (status === 'failed') {
        const letters = await this.options.deadLetters.list(from, to);
        jobs.push(...letters.map((letter) => deadLetterJob(letter, this.options)));
      } else {
        jobs.push(...live.filter((job) => job.state === status).slice(from, to + 1));
      }
    }
    return Promise.all(jobs.map((job) => this.queueJob(job)));
  }

  async getJob(id: string): Promise<QueueJob | undefined> {
    if (id.startsWith('run-')) {
      const run = ((await this.options.recent?.list(0, 500)) ?? []).find((candidate) => `run-${candidate.runId}` === id);
      return run ? this.queueJob(completedJob(run)) : undefined;
    }
    if (id.startsWith('dead-')) {
      const letter = await this.options.deadLetters.get(id.slice('dead-'.length));
      return letter ? this.queueJob(deadLetterJob(letter, this.options)) : undefined;
    }
    const job = (await this.liveJobs()).find((candidate) => candidate.id === id);
    return job ? this.queueJob(job) : undefined;
  }

  async isPaused(): Promise<boolean> {
    return this.options.pause.isPaused();
  }

  async pause(): Promise<void> {
    await this.options.pause.pause('queue view');
  }

  async resume(): Promise<void> {
    await this.options.pause.resume();
  }

  /** The beating workers, each named `host/pid` with the turns it holds. */
  override async getWorkers(): Promise<QueueWorker[]> {
    const snapshot = await this.snapshot();
    return snapshot.workers.map((worker) => ({
      id: worker.workerId,
      name: `${workerLabel(worker.workerId)} · ${worker.turns} turn${worker.turns === 1 ? '' : 's'}`,
      addr: workerLabel(worker.workerId),
      age: 0,
    }));
  }

  /** The failed tab's Clean: discards the dead letters older than `graceTimeMs`; nothing else is cleaned from here. */
  async clean(status: JobCleanStatus, graceTimeMs: number): Promise<void> {
    if (status !== 'failed') throw new Refused('Only failed turns can be cleaned here; /stop in the chat drops what waits');
    const before = Date.now() - graceTimeMs;
    for (const letter of await this.options.deadLetters.list(0, 499)) if (letter.failedAt <= before) await this.options.deadLetters.discard(letter.id);
  }

  async addJob(): Promise<QueueJob> {
    throw new Refused('Turns start from chat messages, not from here');
  }

  async getJobLogs(): Promise<string[]> {
    return [];
  }

  async getMetrics(): Promise<QueueMetrics> {
    return { meta: { count: 0, prevTS: 0, prevCount: 0 }, data: [], count: 0 };
  }

  async getRedisInfo(): Promise<string | null> {
    return null;
  }

  async empty(): Promise<void> {
    throw new Refused('The session queue is not emptied from here; /stop in a chat drops its waiting messages');
  }

  async obliterate(): Promise<void> {
    throw new Refused('The session queue cannot be obliterated');
  }

  async promoteAll(): Promise<void> {
    throw new Refused('Delayed turns run when their wait ends');
  }

  async removeJobScheduler(): Promise<boolean> {
    return false;
  }

  async getJobSchedulers(): Promise<Omit<AppJobScheduler, 'queueName'>[]> {
    return [];
  }

  async getJobSchedulersCount(): Promise<number> {
    return 0;
  }

  async updateJobScheduler(): Promise<JobSchedulerUpdateResult> {
    return 'not-found';
  }

  async runJobSchedulerNow(): Promise<'not-found'> {
    return 'not-found';
  }

  async getGlobalConcurrency(): Promise<number | null> {
    return null;
  }

  async setGlobalConcurrency(): Promise<void> {
    throw new Refused('Concurrency is WORKER_CONCURRENCY and GROUP_MAX_CONCURRENT');
  }

  private async liveJobs(): Promise<TurnJob[]> {
    const [snapshot, paused] = await Promise.all([this.snapshot(), this.options.pause.isPaused()]);
    const options: TurnJobOptions = { showText: this.options.showText, leaseMs: this.options.leaseMs, limitFor: this.options.limitFor, paused };
    return snapshotJobs(snapshot, options);
  }

  private snapshot(): Promise<QueueSnapshot> {
    const now = Date.now();
    if (!this.#snapshot || now - this.#snapshot.at > SNAPSHOT_REUSE_MS) {
      const read = this.options.reader.snapshot();
      this.#snapshot = { at: now, read };
      // a failed read is not reused
      read.catch(() => {
        if (this.#snapshot?.read === read) this.#snapshot = undefined;
      });
    }
    return this.#snapshot.read;
  }

  private async queueJob(job: TurnJob): Promise<QueueJob> {
    if (job.state === 'active' && job.data.parked === true && job.turnId) {
      job.data.approvals = await this.options.reader.approvalsOf(job.sessionKey, job.turnId).catch(() => []);
    }
    return turnQueueJob(job, this.options.deadLetters);
  }
}

function turnQueueJob(job: TurnJob, deadLetters: DeadLetters): QueueJob {
  const json: QueueJobJson = {
    id: job.id,
    name: job.name,
    progress: 0,
    attemptsMade: job.attemptsMade,
    timestamp: job.timestamp,
    processedOn: job.processedOn ?? null,
    processedBy: job.processedBy ?? null,
    finishedOn: job.finishedOn ?? null,
    ...(job.delay !== undefined ? { delay: job.delay } : {}),
    failedReason: job.failedReason,
    stacktrace: job.stacktrace,
    data: job.data,
    returnvalue: null,
    opts: { ...(job.delay !== undefined ? { delay: job.delay } : {}) },
  };
  return {
    opts: json.opts as { delay?: number },
    toJSON: () => json,
    getState: async (): Promise<JobState> => job.state,
    retry: async () => {
      if (!job.deadLetterId) throw new Refused('Only a failed turn can be retried');
      if ((await deadLetters.retry(job.deadLetterId)) === 'gone') throw new Refused('This failed turn was retried or discarded already');
    },
    remove: async () => {
      if (!job.deadLetterId) throw new Refused('Only a failed turn can be discarded here; /stop in the chat stops a running turn and drops what waits');
      await deadLetters.discard(job.deadLetterId);
    },
    promote: async () => {
      throw new Refused('A delayed turn runs when its wait ends');
    },
  };
}
