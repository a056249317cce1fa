import { hostname } from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { InboundMessage } from '../core/inbound-message.js';
import { withLogContext } from '../observability/log-context.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { AbortBus } from './abort-bus.js';
import { COMPACT_JOB, INBOUND_QUEUE, type InboundJobData, type InboundQueue } from './inbound-queue.js';
import type { AcquireResult, SessionScheduler } from './session-scheduler.js';

/** Retry pacing of a failed turn: 2 s doubling, at most a minute apart; after the last attempt, every 5 minutes. */
export const TURN_RETRY = { firstDelayMs: 2_000, maxDelayMs: 60_000, afterLastAttemptMs: 5 * 60_000 } as const;

export function turnRetryDelay(attemptsMade: number): number {
  return Math.min(TURN_RETRY.firstDelayMs * 2 ** Math.max(0, attemptsMade - 1), TURN_RETRY.maxDelayMs);
}

/** Why a running turn's signal fired. */
export const ABORT_REASONS = { stopped: 'stopped by user', shutdown: 'worker shutting down', leaseLost: 'lease lost' } as const;

export type AbortReason = keyof typeof ABORT_REASONS;

/** Why a turn's signal fired, if it did. */
export function abortReasonOf(signal: AbortSignal): AbortReason | undefined {
  if (!signal.aborted || !(signal.reason instanceof Error)) return undefined;
  const message = signal.reason.message;
  return (Object.keys(ABORT_REASONS) as AbortReason[]).find((reason) => ABORT_REASONS[reason] === message);
}

export function isShutdown(signal: AbortSignal): boolean {
  return abortReasonOf(signal) === 'shutdown';
}

export interface TurnRequest {
  turnId: string;
  sessionKey: string;
  messages: InboundMessage[];
  signal: AbortSignal;
  /** The turn ran before (requeued after a failure or a lost holder): it may already be stored or delivered. */
  resumed: boolean;
  /** 1 for the first run of this job, then 2, 3… */
  attempt: number;
  /** No retry follows a failure of this attempt: the runner must answer the user (apology) and record the failure. */
  finalAttempt: boolean;
  /** True while this worker still holds the turn's lease (checked right before sending). */
  holdsLease(): Promise<boolean>;
}

export type TurnOutcome =
  | { kind: 'completed' | 'silent' | 'cancelled' | 'failed' | 'skipped' }
  /** Nothing was delivered or stored; the messages go back to the head of the session for another attempt. */
  | { kind: 'retry'; error: unknown };

export type TurnRunner = (request: TurnRequest) => Promise<TurnOutcome>;

export interface TurnWorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency: number;
  leaseMs: number;
  scheduler: SessionScheduler;
  inbound: InboundQueue;
  abortBus: AbortBus;
  runTurn: TurnRunner;
  /** `compact` jobs (from /compact): summarize the session now, beside any running turn. */
  runCompaction?: (sessionKey: string) => Promise<string>;
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
  }

  private async process(job: Job<InboundJobData>, token: string | undefined): Promise<string> {
    const { scheduler } = this.options;
    const { sessionKey } = job.data;
    if (job.name === COMPACT_JOB) return (await this.options.runCompaction?.(sessionKey)) ?? 'no-compactor';
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
      if (state === 'aborted') controller.abort(new Error(ABORT_REASONS.stopped));
      if (state === 'lost') {
        leaseLost = true;
        controller.abort(new Error(ABORT_REASONS.leaseLost));
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
    if (outcome.kind === 'retry') {
      const requeued = await scheduler.requeue(sessionKey, turnId, holder);
      if (requeued === 'requeued' && isShutdown(controller.signal)) return 'handed-back';
      if (requeued === 'requeued' && finalAttempt) {
        // Never left without a job: the turn waits at the head of its session and is tried again later.
        logger.error({ turnId, sessionKey, err: outcome.error }, `turn failed on every attempt; trying again in ${TURN_RETRY.afterLastAttemptMs / 1000} s`);
        await this.options.inbound.addWakeJob(sessionKey, TURN_RETRY.afterLastAttemptMs);
        return 'retry-later';
      }
      if (requeued === 'requeued') throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
      await this.afterRelease(sessionKey, await scheduler.release(sessionKey, turnId, holder));
      return requeued;
    }
    await this.afterRelease(sessionKey, await scheduler.release(sessionKey, turnId, holder));
    return outcome.kind;
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
      this.options.abortBus.abortAll(ABORT_REASONS.shutdown);
    }, graceMs);
    try {
      await closing;
    } finally {
      clearTimeout(timer);
    }
  }
}
