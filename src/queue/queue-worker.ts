import { abortReasonOf, TurnAbortError } from '../core/turn-abort.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { TurnAbandoner, TurnFailingNotifier, TurnOutcome, TurnRunner } from '../core/turn-contract.js';
import { errorMessage } from '../core/errors.js';
import { withLogContext } from '../observability/log-context.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { traceTurn, type TurnAttempt } from '../observability/turn-tracing.js';
import type { RedisClient } from '../redis/redis-client.js';
import { newHistoryVersion, type Claim, type SessionQueue } from '../redis/session-queue.js';
import type { AbortBus } from './abort-bus.js';
import { LeaseRenewals } from './lease-renewals.js';

/**
 * Retry pacing of a failed turn: 2 s (TURN_RETRY_FIRST_DELAY_MS) doubling, at most a minute apart, `attempts` times (TURN_RETRY_ATTEMPTS). After
 * the last attempt the turn waits 5 minutes (TURN_RETRY_ROUND_DELAY_MS) and gets another round, at most `lateRounds`
 * times (TURN_RETRY_ROUNDS): about 43 minutes of waits in all with the defaults (see retryPeriodMs), long enough to
 * ride out an outage. Its user is told once, within TURN_FAILING_NOTICE_MS of its first failure, that the bot keeps
 * trying; then it is abandoned: the user gets a final message, the operator a dead letter (retry or discard it in
 * the queue view), an error log and a metric. Nothing is retried forever.
 */
export const TURN_RETRY = { attempts: 12, firstDelayMs: 2_000, maxDelayMs: 60_000, afterLastAttemptMs: 5 * 60_000, lateRounds: 3 } as const;

/** The wait after failed attempt `attempt` of a round: `firstDelayMs` (TURN_RETRY_FIRST_DELAY_MS) doubling, at most a minute. */
export function turnRetryDelay(attempt: number, firstDelayMs: number = TURN_RETRY.firstDelayMs): number {
  return Math.min(firstDelayMs * 2 ** Math.max(0, attempt - 1), TURN_RETRY.maxDelayMs);
}

/** The waits of a turn's retries from its first failure to its abandonment (the attempts' own time comes on top). */
export function retryPeriodMs(attempts: number, lateRounds: number, lateRoundDelayMs: number, firstDelayMs: number = TURN_RETRY.firstDelayMs): number {
  let round = 0;
  for (let attempt = 1; attempt < attempts; attempt += 1) round += turnRetryDelay(attempt, firstDelayMs);
  return round * (lateRounds + 1) + lateRoundDelayMs * lateRounds;
}

/** TURN_FAILING_NOTICE_MS's default. */
export const FAILING_NOTICE_MS = 30_000;

export type { TurnAbandoner } from '../core/turn-contract.js';

/** What a turn's trace says of the attempt a claim starts (made only when tracing is on). */
function attemptOf(claim: Claim, sessionKey: string, workerId: string): TurnAttempt {
  const first = claim.messages[0]!;
  return {
    turnId: claim.turnId,
    sessionKey,
    attempt: claim.attempt,
    resumed: claim.resumed,
    workerId,
    agentId: first.agentId,
    firstSentAt: Math.min(...claim.messages.map((message) => message.sentAt)),
    taskId: first.scheduled?.taskId,
    inputText: claim.messages.map((message) => message.text).join('\n'),
  };
}

/** The longest an idle worker blocks on a shard's marker before it looks at the schedule again. */
const IDLE_WAIT_MS = 5_000;
/** Sessions taken from a shard in one round trip at most. */
const POP_BATCH = 64;

export interface QueueWorkerOptions {
  queue: SessionQueue;
  /** A connection of its own for each shard's blocking wait. */
  blockingConnection: () => RedisClient;
  workerId: string;
  /** Turns this process runs at once (waiting on the model costs little: thousands are fine). */
  concurrency: number;
  abortBus: AbortBus;
  runTurn: TurnRunner;
  /** Ends a turn that failed every round (see TURN_RETRY); absent: the turn's messages are dropped with an error log. */
  abandonTurn?: TurnAbandoner;
  /** Tells a failing turn's user, once, that the bot keeps trying (see TURN_RETRY). */
  notifyFailing?: TurnFailingNotifier;
  /** TURN_FAILING_NOTICE_MS: the user is told within this long of the turn's first failure (FAILING_NOTICE_MS). */
  failingNoticeMs?: number;
  attempts?: number;
  /** TURN_RETRY_FIRST_DELAY_MS: the wait after a round's first failed attempt (TURN_RETRY.firstDelayMs), doubling after each. */
  firstDelayMs?: number;
  lateRounds?: number;
  lateRoundDelayMs?: number;
  /** The operator paused turns (the queue view's `turns` entry): no new turn starts. */
  isPaused?: () => boolean;
  /** Told of every release, before it is sent and when it came back (the session cache: turn/session-cache.ts). */
  releases?: ReleaseObserver;
  logger: Logger;
  metrics?: Metrics;
}

/** `next`: the history version the release writes when the turn stored its history (undefined: it stored nothing). */
export interface ReleaseObserver {
  releasing(release: { turnId: string; sessionKey: string; next: string | undefined }): void;
  /** `version`: the session's history version after the release (undefined: lost, another holder has the turn). */
  released(release: { turnId: string; sessionKey: string; next: string | undefined; version: string | undefined }): void;
}

/**
 * Runs turns: one loop per shard takes the sessions that are due (a round trip for up to POP_BATCH of them), and
 * blocks on the shard's marker when nothing is; each session is acquired (a slot, its next turn) and its turn runs
 * under a lease renewed while it runs. Every outcome ends in the queue: released, requeued for a retry, parked for
 * a person, or abandoned.
 */
export class QueueWorker {
  readonly #options: QueueWorkerOptions;
  readonly #running = new Set<Promise<void>>();
  readonly #blocking: RedisClient[] = [];
  #loops: Array<Promise<void>> = [];
  #closing = false;
  #capacityWaiters: Array<() => void> = [];
  /** One timer renews every running turn's lease (lease-renewals.ts), a third of a lease apart. */
  readonly #renewals: LeaseRenewals;

  constructor(options: QueueWorkerOptions) {
    this.#options = options;
    this.#renewals = new LeaseRenewals(Math.max(250, Math.floor(options.queue.options.leaseMs / 3)));
  }

  get inFlight(): number {
    return this.#running.size;
  }

  get workerId(): string {
    return this.#options.workerId;
  }

  /** Whether a turn may start here now: a slot free, the queue not paused, the worker not closing. */
  get takesTurns(): boolean {
    return !this.#closing && this.#running.size < this.#options.concurrency && !this.#options.isPaused?.();
  }

  /**
   * Runs a turn claimed for this worker when its message was enqueued (see SessionQueue.enqueue). It starts at
   * once, up to its first wait, before the enqueuing webhook is answered: deferring it (setImmediate) measured
   * more CPU per message, as each turn then started alone instead of with the others one Redis reply brought.
   */
  runClaimed(sessionKey: string, claim: Claim): void {
    this.track(this.runLeased(sessionKey, claim), sessionKey);
  }

  start(): void {
    this.#loops = this.#options.queue.keys.shards().map((shard) => this.loop(shard.shard, shard.wake, shard.preferred(this.#options.workerId)));
  }

  /**
   * `preferredKey`: the sessions placed on this worker (or released by it with messages waiting), to take first:
   * their history is in its cache. The wait blocks on it beside the shard's marker; a session it yields is taken.
   */
  private async loop(shard: number, wakeKey: string, preferredKey: string): Promise<void> {
    const { queue, concurrency, logger, workerId } = this.#options;
    const blocking = this.#options.blockingConnection();
    this.#blocking.push(blocking);
    while (!this.#closing) {
      if (this.#running.size >= concurrency || this.#options.isPaused?.()) {
        await new Promise<void>((resolve) => {
          this.#capacityWaiters.push(resolve);
          setTimeout(resolve, 1_000).unref();
        });
        continue;
      }
      let waitMs: number;
      try {
        const batch = Math.min(POP_BATCH, concurrency - this.#running.size);
        const due = await queue.popDue(shard, batch, workerId);
        if (this.#closing) {
          await this.handBack(shard, due.sessionKeys);
          break;
        }
        for (const sessionKey of due.sessionKeys) this.take(sessionKey);
        // a full batch: more may be due right now; fewer: the shard is drained until its marker says otherwise
        if (due.sessionKeys.length === batch) continue;
        waitMs = due.nextDueAt === undefined ? IDLE_WAIT_MS : Math.min(IDLE_WAIT_MS, due.nextDueAt - due.now);
        if (waitMs <= 0) continue;
        const woken = await blocking.bzpopmin(wakeKey, preferredKey, Math.max(waitMs, 1) / 1000);
        const mine = woken?.[0] === preferredKey ? woken[1] : undefined;
        if (mine && this.#closing) await this.handBack(shard, [mine]);
        // paused meanwhile (the wait lasts up to IDLE_WAIT_MS): the session stays in the shard's schedule for later
        else if (mine && !this.#options.isPaused?.()) this.take(mine);
      } catch (error) {
        if (this.#closing) break;
        logger.warn({ err: error, shard }, 'could not take work from the queue; trying again');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /**
   * A pop that returned after the close began: its sessions are not run here (a turn started now would only be cut
   * short by the grace period) but made due for the other workers at once; left alone they would wait out the pop's
   * claim (the lease) or the placement grace.
   */
  private async handBack(shard: number, sessionKeys: string[]): Promise<void> {
    if (sessionKeys.length === 0) return;
    await this.#options.queue.handBack(shard, sessionKeys).catch((error: unknown) =>
      this.#options.logger.warn({ err: error, shard, sessions: sessionKeys.length }, 'could not hand back the sessions a stopping worker popped; they wait for their schedule'),
    );
  }

  private wakeWaiters(): void {
    for (const resolve of this.#capacityWaiters.splice(0)) resolve();
  }

  private take(sessionKey: string): void {
    this.track(this.handle(sessionKey), sessionKey);
  }

  private track(handling: Promise<void>, sessionKey: string): void {
    const task = handling
      .catch((error: unknown) => this.#options.logger.error({ err: error, sessionKey }, 'turn handling failed; the session is looked at again later'))
      .finally(() => {
        this.#running.delete(task);
        this.wakeWaiters();
      });
    this.#running.add(task);
  }

  private async handle(sessionKey: string): Promise<void> {
    const claim = await this.#options.queue.acquire(sessionKey, this.#options.workerId);
    if (claim.kind === 'acquired') await this.runLeased(sessionKey, claim);
  }

  private async runLeased(sessionKey: string, claim: Claim): Promise<void> {
    const { turnId, holder, messages, resumed, attempt } = claim;
    const { queue, abortBus, logger, metrics } = this.#options;
    // the last attempt of the last round: no retry follows
    const finalAttempt = attempt >= this.attempts && claim.round >= this.lateRounds;
    const controller = abortBus.register(turnId);
    let leaseLost = false;
    // a Redis error: the lease is not known to be lost (the periodic renewal tries again) nor known to be held
    const renew = async (onError: 'ok' | 'unknown' = 'ok') => {
      const state = await queue.renew(sessionKey, turnId, holder).catch(() => onError);
      if (state === 'aborted' && !controller.signal.aborted) controller.abort(new TurnAbortError('stopped'));
      if (state === 'lost') {
        leaseLost = true;
        if (!controller.signal.aborted) controller.abort(new TurnAbortError('leaseLost'));
      }
      return state;
    };
    const stopRenewing = this.#renewals.add(() => void renew());
    const startedAt = performance.now();
    let outcome: TurnOutcome;
    try {
      outcome = await traceTurn(() => attemptOf(claim, sessionKey, this.#options.workerId), () => withLogContext({ runId: turnId, sessionKey }, () =>
        this.#options.runTurn({
          turnId,
          sessionKey,
          messages,
          resumed,
          holder,
          signal: controller.signal,
          attempt,
          finalAttempt,
          historyVersion: claim.historyVersion,
          conversation: claim.conversation,
          // not known to hold (Redis unreachable) is not holding: nothing is sent on it
          holdsLease: async () => (await renew('unknown')) === 'ok',
        }),
      ), (result) => result.kind);
    } catch (error) {
      // a model failure was reported by the turn; this one (Redis or PostgreSQL away, a bug) was not
      logger.warn({ turnId, sessionKey, attempt, retryInMs: finalAttempt ? undefined : turnRetryDelay(attempt), err: error }, 'turn failed; it is tried again');
      outcome = { kind: 'retry', error };
    } finally {
      stopRenewing();
      abortBus.unregister(turnId);
    }
    metrics?.turns.inc({ outcome: outcome.kind });
    metrics?.turnSeconds.observe({ outcome: outcome.kind }, (performance.now() - startedAt) / 1000);
    if (leaseLost) {
      logger.warn({ turnId, sessionKey }, 'lease lost mid-turn; another worker takes the turn over');
      return;
    }
    if (outcome.kind === 'parked') return this.park(claim, sessionKey, outcome);
    if (outcome.kind === 'retry') return this.retry(claim, sessionKey, outcome.error, abortReasonOf(controller.signal) === 'shutdown');
    await this.release(claim, sessionKey, outcome.kind !== 'skipped' || resumed);
  }

  private get attempts(): number {
    return this.#options.attempts ?? TURN_RETRY.attempts;
  }

  private get firstDelayMs(): number {
    return this.#options.firstDelayMs ?? TURN_RETRY.firstDelayMs;
  }

  private get lateRounds(): number {
    return this.#options.lateRounds ?? TURN_RETRY.lateRounds;
  }

  private get lateRoundDelayMs(): number {
    return this.#options.lateRoundDelayMs ?? TURN_RETRY.afterLastAttemptMs;
  }

  /**
   * A failed attempt: its reason is kept (a dead letter shows every one); the user is told once, before the
   * turn's first TURN_FAILING_NOTICE_MS of failing are over, that the bot keeps trying; then the turn waits out its
   * backoff at the head of its session, or, after the last round, is abandoned.
   */
  private async retry(claim: Claim, sessionKey: string, error: unknown, shutdown: boolean): Promise<void> {
    const { queue, logger } = this.#options;
    const { turnId, holder, attempt, round } = claim;
    if (shutdown) {
      // handed back: the turn waits at the head of its session for another worker, without using an attempt
      await queue.requeue(sessionKey, turnId, holder, { delayMs: 0, attempt, round });
      return;
    }
    const failure = await queue.recordFailure(sessionKey, turnId, holder, { round, attempt, reason: errorMessage(error) }).catch((failed: unknown) => {
      logger.warn({ turnId, sessionKey, err: failed }, 'could not record why the turn failed');
      return { firstFailedAt: Date.now(), now: Date.now() };
    });
    // another worker holds the turn now
    if (!failure) return;
    const failingFor = failure.now - failure.firstFailedAt;
    const lastOfRound = attempt >= this.attempts;
    if (lastOfRound && round >= this.lateRounds) return this.abandon(claim, sessionKey, error, failingFor);
    const delayMs = lastOfRound ? this.lateRoundDelayMs : turnRetryDelay(attempt, this.firstDelayMs);
    if (this.#options.notifyFailing && failingFor + delayMs >= (this.#options.failingNoticeMs ?? FAILING_NOTICE_MS)) {
      const retryForMs = Math.max(delayMs, retryPeriodMs(this.attempts, this.lateRounds, this.lateRoundDelayMs, this.firstDelayMs) - failingFor);
      await this.#options.notifyFailing({ turnId, sessionKey, holder, messages: claim.messages, retryForMs }).catch((failed: unknown) =>
        logger.warn({ turnId, sessionKey, err: failed }, 'could not tell the user that their turn keeps failing'),
      );
    }
    if (lastOfRound) {
      logger.error({ turnId, sessionKey, err: error }, `turn failed on every attempt; trying again in ${delayMs / 1000} s`);
      await queue.requeue(sessionKey, turnId, holder, { delayMs, attempt: 1, round: round + 1 });
      return;
    }
    await queue.requeue(sessionKey, turnId, holder, { delayMs, attempt: attempt + 1, round });
  }

  /** The turn waits for a person: it keeps its slot without this worker until an answer or its deadline. */
  private async park(claim: Claim, sessionKey: string, outcome: Extract<TurnOutcome, { kind: 'parked' }>): Promise<void> {
    const { queue, logger } = this.#options;
    const { turnId } = claim;
    const parked = await queue.park(sessionKey, turnId, claim.holder, outcome.untilMs);
    if (parked === 'parked') logger.info({ turnId, sessionKey, untilMs: outcome.untilMs }, 'turn parked until a person answers');
    // lost: another worker has it; resume: it runs again now
    if (parked !== 'aborted') return;
    // stopped while it was asking (the mark came before the park): the turn ends here, as a stopped waiting turn does
    const ended = await outcome.stopped().catch((error: unknown) => {
      logger.warn({ turnId, sessionKey, err: error }, 'could not end the turn stopped while it parked; it is released with its request open');
      return { kind: 'skipped' } as const;
    });
    await this.release(claim, sessionKey, ended.kind !== 'skipped');
  }

  /**
   * The last round failed too: the turn's messages become a dead letter (an operator may retry or discard it), the
   * turn ends for good (the final message, a failed record), its slot is released.
   */
  private async abandon(claim: Claim, sessionKey: string, error: unknown, triedForMs: number): Promise<void> {
    const { logger, metrics, queue } = this.#options;
    const { turnId, holder, messages, conversation } = claim;
    logger.error({ turnId, sessionKey, err: error }, 'turn failed on every round of attempts; abandoning it as a dead letter');
    metrics?.turns.inc({ outcome: 'abandoned' });
    // first: written again (the same id) should this worker die before the release and the turn run out again
    const dead = await queue.deadLetter(sessionKey, turnId, holder, errorMessage(error)).catch((failure: unknown) => {
      logger.error({ turnId, sessionKey, err: failure }, 'could not keep the abandoned turn as a dead letter');
      return 'dead' as const;
    });
    if (dead === 'lost') return;
    await this.#options.abandonTurn?.({ turnId, sessionKey, holder, messages, error, triedForMs, conversation }).catch((failure: unknown) =>
      logger.error({ turnId, sessionKey, err: failure }, 'could not end the abandoned turn cleanly'),
    );
    await this.release(claim, sessionKey, true);
  }

  /** `wroteHistory`: the turn stored its messages, so the session's history version moves on. */
  private async release(claim: Claim, sessionKey: string, wroteHistory: boolean): Promise<void> {
    const { turnId, holder } = claim;
    const next = wroteHistory ? newHistoryVersion() : undefined;
    this.#options.releases?.releasing({ turnId, sessionKey, next });
    // a stopping worker's own blocking pop may still take the session from its preferred set, and its reply be lost
    // with the connection: the session is due for every worker at once instead of after the placement grace
    const history = next === undefined ? undefined : { base: claim.historyVersion, next };
    const released = await this.#options.queue.release(sessionKey, turnId, holder, history, this.#closing);
    this.#options.releases?.released({ turnId, sessionKey, next, version: released.kind === 'released' ? released.historyVersion : undefined });
  }

  /** Stops taking work; running turns may finish for up to graceMs, then they are handed back to other workers. */
  async close(graceMs: number): Promise<void> {
    this.#closing = true;
    this.wakeWaiters();
    for (const connection of this.#blocking) connection.disconnect();
    await Promise.allSettled(this.#loops);
    const timer = setTimeout(() => {
      this.#options.logger.warn({ running: this.#running.size }, 'grace period over; handing turns back');
      this.#options.abortBus.abortAll('shutdown');
    }, graceMs);
    try {
      await Promise.allSettled([...this.#running]);
    } finally {
      clearTimeout(timer);
    }
    // sessions waiting for this worker (a release or an enqueue while it stopped) go to any worker
    await this.#options.queue.handBackPreferred(this.#options.workerId).catch((error: unknown) =>
      this.#options.logger.warn({ err: error }, 'could not hand the sessions waiting for this worker back; they wait for the fallback schedule'),
    );
  }
}
