import { hostname } from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { InboundMessage } from '../core/inbound-message.js';
import { abortReasonOf, TurnAbortError } from '../core/turn-abort.js';
import type { TurnOutcome, TurnRunner } from '../core/turn-contract.js';
import { withLogContext } from '../observability/log-context.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { AbortBus } from './abort-bus.js';
import { COMPACT_JOB, INBOUND_QUEUE, type InboundJobData, type InboundQueue } from './inbound-queue.js';
import type { AcquireResult, SessionScheduler } from './session-scheduler.js';
import type { WorkerLiveness } from './worker-liveness.js';

/**
 * Retry pacing of a failed turn: 2 s doubling, at most a minute apart. After the job's last attempt the turn
 * waits 5 minutes and gets another round of attempts, at most `lateRounds` times (about 40 minutes in all
 * with the defaults, long enough to ride out an outage); then it is abandoned: the user gets an apology and
 * the operator an error log and a metric. Nothing is retried forever.
 */
export const TURN_RETRY = { firstDelayMs: 2_000, maxDelayMs: 60_000, afterLastAttemptMs: 5 * 60_000, lateRounds: 3 } as const;

export function turnRetryDelay(attemptsMade: number): number {
  return Math.min(TURN_RETRY.firstDelayMs * 2 ** Math.max(0, attemptsMade - 1), TURN_RETRY.maxDelayMs);
}

/** A turn that failed every round of attempts: what the turn layer does to end it (apology, failed record). */
export type TurnAbandoner = (abandoned: { turnId: string; sessionKey: string; holder: string; messages: InboundMessage[]; error: unknown }) => Promise<void>;

export interface TurnWorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency: number;
  leaseMs: number;
  scheduler: SessionScheduler;
  inbound: InboundQueue;
  abortBus: AbortBus;
  runTurn: TurnRunner;
  /** Ends a turn that failed every round (see TURN_RETRY); absent: the turn's messages are dropped with an error log. */
  abandonTurn?: TurnAbandoner;
  /** Rounds of attempts before a turn is abandoned, and the wait between rounds (tests shorten them). */
  lateRounds?: number;
  lateRoundDelayMs?: number;
  /** This process's heartbeat; the worker takes over the turns of the dead workers it claims. Absent: leases expire on their own. */
  liveness?: WorkerLiveness;
  /** `compact` jobs (from /compact): summarize the session now, beside any running turn. */
  runCompaction?: (sessionKey: string, requestedBy?: InboundMessage) => Promise<string>;
  logger: Logger;
  metrics?: Metrics;
}

export class TurnWorker {
  readonly worker: Worker<InboundJobData>;
  private readonly options: TurnWorkerOptions;

  constructor(options: TurnWorkerOptions) {
    this.options = options;
    this.worker = new Worker<InboundJobData>(INBOUND_QUEUE, (job, token) => this.process(job, token), {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      name: `${hostname()}:${process.pid}`,
      // A dead worker's job comes back within seconds; its turn's lease expires on the same clock.
      lockDuration: options.leaseMs,
      stalledInterval: Math.max(1_000, Math.floor(options.leaseMs / 2)),
      maxStalledCount: 10,
      autorun: false,
      settings: { backoffStrategy: (attemptsMade: number) => turnRetryDelay(attemptsMade) },
    });
    this.worker.on('failed', (job, error) =>
      options.logger.warn({ jobId: job?.id, err: error, attemptsMade: job?.attemptsMade }, 'job failed'),
    );
    this.worker.on('error', (error) => options.logger.error({ err: error }, 'worker error'));
  }

  start(): void {
    void this.worker.run();
    this.options.liveness?.start();
  }

  /**
   * Workers that stopped beating (killed, crashed, partitioned): the leases they held in every session with a
   * turn running are expired now, and each such session gets a wake-up job that resumes the turn (same turn
   * id: its checkpoints and delivery record make the takeover neither ask the model nor send a part twice).
   */
  async takeOverFrom(deadWorkerIds: string[]): Promise<void> {
    const { scheduler, inbound, logger, metrics } = this.options;
    const active = await inbound.queue.getJobs(['active'], 0, -1);
    const sessions = new Set(active.map((job) => job?.data.sessionKey).filter((key): key is string => typeof key === 'string'));
    let turns = 0;
    for (const sessionKey of sessions) {
      const expired = await scheduler.expireLeasesOf(sessionKey, deadWorkerIds);
      if (expired === 0) continue;
      turns += expired;
      await inbound.addWakeJob(sessionKey);
    }
    metrics?.turnsTakenOver.inc(turns);
    logger.warn({ workers: deadWorkerIds, turns }, 'took over the turns of dead workers');
  }

  private async process(job: Job<InboundJobData>, token: string | undefined): Promise<string> {
    const { scheduler } = this.options;
    const { sessionKey } = job.data;
    if (job.name === COMPACT_JOB) return (await this.options.runCompaction?.(sessionKey, job.data.requestedBy)) ?? 'no-compactor';
    const claim = await scheduler.acquire(sessionKey, job.id!);
    switch (claim.kind) {
      case 'empty':
        return 'collected';
      case 'busy':
      case 'debounce':
        // Parked, not polling: a releasing turn promotes it; the timeout is only the crash backstop.
        await job.moveToDelayed(Date.now() + claim.waitMs + 100, token);
        throw new DelayedError();
      case 'acquired': {
        if (claim.wakeJobId) await this.options.inbound.wake(claim.wakeJobId);
        const attempt = job.attemptsMade + 1;
        const result = await this.runLeased(sessionKey, claim, attempt, attempt >= (job.opts.attempts ?? 1));
        if (result === 'handed-back') {
          // Shutdown: the turn waits at the head of its session; this job wakes another worker without using an attempt.
          await job.moveToDelayed(Date.now() + 100, token);
          throw new DelayedError();
        }
        return result;
      }
    }
  }

  private async runLeased(sessionKey: string, claim: Extract<AcquireResult, { kind: 'acquired' }>, attempt: number, finalAttempt: boolean) {
    const { turnId, holder, messages, resumed } = claim;
    const { scheduler, abortBus, logger, leaseMs } = this.options;
    const controller = abortBus.register(turnId);
    let leaseLost = false;
    const renew = async () => {
      const state = await scheduler.renew(sessionKey, turnId, holder).catch(() => 'ok' as const);
      if (state === 'aborted' && !controller.signal.aborted) controller.abort(new TurnAbortError('stopped'));
      if (state === 'lost') {
        leaseLost = true;
        if (!controller.signal.aborted) controller.abort(new TurnAbortError('leaseLost'));
      }
      return state;
    };
    const renewal = setInterval(() => void renew(), Math.max(250, Math.floor(leaseMs / 3)));
    const startedAt = performance.now();
    let outcome: TurnOutcome;
    try {
      outcome = await withLogContext({ runId: turnId, sessionKey }, () => this.options.runTurn({
        turnId,
        sessionKey,
        messages,
        resumed,
        holder,
        signal: controller.signal,
        attempt,
        finalAttempt,
        holdsLease: async () => (await renew()) === 'ok',
      }));
    } catch (error) {
      outcome = { kind: 'retry', error };
    } finally {
      clearInterval(renewal);
      abortBus.unregister(turnId);
    }
    this.options.metrics?.turns.inc({ outcome: outcome.kind });
    this.options.metrics?.turnSeconds.observe({ outcome: outcome.kind }, (performance.now() - startedAt) / 1000);
    if (leaseLost) {
      logger.warn({ turnId, sessionKey }, 'lease lost mid-turn; another worker takes the turn over');
      return 'lease-lost';
    }
    if (outcome.kind === 'parked') return this.park(sessionKey, turnId, holder, outcome.untilMs);
    if (outcome.kind === 'retry') {
      if (finalAttempt && abortReasonOf(controller.signal) !== 'shutdown') {
        const round = await scheduler.countLateRound(sessionKey, turnId);
        if (round > (this.options.lateRounds ?? TURN_RETRY.lateRounds)) return this.abandon(sessionKey, turnId, holder, messages, outcome.error);
      }
      const requeued = await scheduler.requeue(sessionKey, turnId, holder);
      if (requeued === 'requeued' && abortReasonOf(controller.signal) === 'shutdown') return 'handed-back';
      if (requeued === 'requeued' && finalAttempt) {
        // Not left without a job: the turn waits at the head of its session for its next round.
        const delayMs = this.options.lateRoundDelayMs ?? TURN_RETRY.afterLastAttemptMs;
        logger.error({ turnId, sessionKey, err: outcome.error }, `turn failed on every attempt; trying again in ${delayMs / 1000} s`);
        await this.options.inbound.addWakeJob(sessionKey, delayMs);
        return 'retry-later';
      }
      if (requeued === 'requeued') throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
      await this.afterRelease(sessionKey, await scheduler.release(sessionKey, turnId, holder));
      return requeued;
    }
    await this.afterRelease(sessionKey, await scheduler.release(sessionKey, turnId, holder));
    return outcome.kind;
  }

  /**
   * The turn waits for a person: it keeps its slot without this worker. A wake-up job at the deadline takes it
   * back if nobody answers (an answer wakes it sooner, see approvals/answer-approval.ts).
   */
  private async park(sessionKey: string, turnId: string, holder: string, untilMs: number): Promise<string> {
    const { scheduler, inbound, logger } = this.options;
    const parked = await scheduler.park(sessionKey, turnId, holder, untilMs);
    if (parked === 'parked') {
      await inbound.addWakeJob(sessionKey, Math.max(0, untilMs - Date.now()) + 250);
      logger.info({ turnId, sessionKey, untilMs }, 'turn parked until a person answers');
      return 'parked';
    }
    if (parked === 'resume') {
      await inbound.addWakeJob(sessionKey);
      return 'parked';
    }
    // stopped while it was asking: the turn ends here; lost: another worker has it
    if (parked === 'aborted') await this.afterRelease(sessionKey, await scheduler.release(sessionKey, turnId, holder));
    return parked;
  }

  /** The last round failed too: end the turn for good (apology, failed record), release its slot, move on. */
  private async abandon(sessionKey: string, turnId: string, holder: string, messages: InboundMessage[], error: unknown): Promise<string> {
    const { logger, metrics } = this.options;
    logger.error({ turnId, sessionKey, err: error }, 'turn failed on every round of attempts; abandoning it');
    metrics?.turns.inc({ outcome: 'abandoned' });
    await this.options.abandonTurn?.({ turnId, sessionKey, holder, messages, error }).catch((failure: unknown) =>
      logger.error({ turnId, sessionKey, err: failure }, 'could not end the abandoned turn cleanly'),
    );
    await this.afterRelease(sessionKey, await this.options.scheduler.release(sessionKey, turnId, holder));
    return 'abandoned';
  }

  private async afterRelease(sessionKey: string, released: Awaited<ReturnType<SessionScheduler['release']>>) {
    const { inbound } = this.options;
    if (released.kind === 'lost') return;
    if (released.kind === 'wake') await inbound.wake(released.jobId);
    else if (released.kind === 'orphan') await inbound.addWakeJob(sessionKey);
    else await Promise.all(released.parkedJobIds.map((jobId) => inbound.wake(jobId)));
  }

  /** Lets running turns finish for up to graceMs, then aborts them so another worker takes them over. */
  async close(graceMs: number): Promise<void> {
    const closing = this.worker.close();
    const timer = setTimeout(() => {
      this.options.logger.warn({ running: this.options.abortBus.runningCount }, 'grace period over; handing turns back');
      this.options.abortBus.abortAll('shutdown');
    }, graceMs);
    try {
      await closing;
    } finally {
      clearTimeout(timer);
      await this.options.liveness?.stop();
    }
  }
}
