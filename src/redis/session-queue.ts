import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../core/inbound-message.js';
import { isGroupSessionKey } from '../core/session-key.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import { QueueScripts } from './scripts.js';
import type { SessionPlacement } from './worker-roster.js';

export type QueueMode = 'collect' | 'followup' | 'interrupt';

const SEEN_TTL_SECONDS = 24 * 60 * 60;
const THREAD_SESSIONS_TTL_SECONDS = 7 * 24 * 60 * 60;
/** Entries one turn claims at most (a flood in one chat is answered in turns of this many messages). */
const MAX_CLAIM = 100;
/** How long a session's own worker has to take its next turn before any worker may (see enqueue.lua). */
export const PLACEMENT_GRACE_MS = 1_000;
const FIELD = '\x1f';
/** A failing turn's reasons are kept this long (longer than its retries last with any sane TURN_RETRY_*), at most this many. */
const FAILURES_KEPT_MS = 24 * 60 * 60 * 1000;
const MAX_FAILURES_KEPT = 50;
const MAX_REASON_CHARS = 500;
/** A dead letter is kept a week (as BullMQ keeps failed jobs), then it expires unanswered. */
export const DEAD_LETTER_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface SessionQueueOptions {
  leaseMs: number;
  groupMaxConcurrent: number;
  /** INBOUND_DEBOUNCE_MS: rapid-fire messages of a session within this window are one turn. */
  debounceMs: number;
  /** MEDIA_GROUP_WAIT_MS: how long an album's newest part is given for the rest to arrive. */
  albumWaitMs: number;
  /** The session's queue mode (defaults and config file overrides). */
  modeOf(sessionKey: string): QueueMode;
  /** Which worker a session's turns go to first (WorkerRoster); absent: any worker takes any session. */
  placement?: SessionPlacement;
  /** How long that worker has to take a session before any may (PLACEMENT_GRACE_MS). */
  placementGraceMs?: number;
}

export type EnqueueResult = { kind: 'duplicate' } | { kind: 'queued'; running: number } | { kind: 'claimed'; claim: Claim };

export type AcquireResult =
  | { kind: 'empty' | 'busy' | 'waiting' }
  | {
      kind: 'acquired';
      turnId: string;
      holder: string;
      messages: InboundMessage[];
      /** The turn ran before (taken back, retried, unparked): it may have steps saved and parts delivered. */
      resumed: boolean;
      /** Moves on with every stored turn, /new and summary: a cached history of another version is stale ('' unknown). */
      historyVersion: string;
      attempt: number;
      round: number;
      /** The conversation (count of /new) the turn started in; undefined when Redis had none (PostgreSQL's then). */
      conversation: number | undefined;
    };

/** A turn a worker holds: from `acquire`, or claimed for it at enqueue. */
export type Claim = Extract<AcquireResult, { kind: 'acquired' }>;

/** `historyVersion`: the session's history version now (the written one only when nobody else wrote since the turn began). */
export type ReleaseResult = { kind: 'released'; historyVersion: string } | { kind: 'lost' };

export interface StopResult {
  droppedMessages: number;
  abortedTurnIds: string[];
  /** Turns waiting for an approval: no worker runs them, so the caller settles their approvals as stopped. */
  waitingTurnIds: string[];
}

export interface DueSessions {
  /** Redis's clock when it answered. */
  now: number;
  /** When the shard's next scheduled session is due; undefined when nothing is scheduled. */
  nextDueAt: number | undefined;
  sessionKeys: string[];
}

/**
 * Per-session order and slots, and the queue that runs them: a session's pending messages, running turns and
 * counts live under its shard's hash tag; a shard's `sched` says when each session with work must be looked at.
 * Every change is one Lua script (src/redis/lua/); this class only names keys and decodes replies.
 */
export class SessionQueue {
  readonly #scripts: QueueScripts;

  constructor(
    private readonly redis: RedisClient,
    readonly keys: KeySpace,
    readonly options: SessionQueueOptions,
  ) {
    this.#scripts = new QueueScripts(redis);
  }

  limitFor(sessionKey: string): number {
    return isGroupSessionKey(sessionKey) ? this.options.groupMaxConcurrent : 1;
  }

  modeOf(sessionKey: string): QueueMode {
    return this.options.modeOf(sessionKey);
  }

  /**
   * `localWorker`: a worker of this process with a free slot. A message that finds its session idle and may start at
   * once becomes that worker's turn in the same round trip (`claimed`, see enqueue.lua) when the session is that
   * worker's (placement) or no worker is known; any other is queued, for the session's worker first.
   */
  async enqueue(sessionKey: string, message: InboundMessage, now = Date.now(), localWorker?: string): Promise<EnqueueResult> {
    const keys = this.keys.session(sessionKey);
    const debounced = this.options.debounceMs > 0 && this.modeOf(sessionKey) !== 'followup';
    const album = message.mediaGroupId ?? '';
    const readyAt = debounced ? now + this.options.debounceMs : album ? now + this.options.albumWaitMs : now;
    const payload = JSON.stringify(message);
    const placed = this.options.placement?.workerFor(sessionKey) ?? '';
    const claimFor = localWorker !== undefined && (placed === '' || placed === localWorker) ? localWorker : undefined;
    const keyList = [keys.seen(message.dedupeKey), keys.pending, keys.meta, keys.sched, keys.wake, keys.alive, keys.preferred(placed)];
    const args: Array<string | number> = [
      SEEN_TTL_SECONDS,
      message.dedupeKey,
      now,
      album,
      payload,
      this.limitFor(sessionKey),
      sessionKey,
      readyAt,
      debounced ? '' : 'LT',
      placed,
      this.options.placementGraceMs ?? PLACEMENT_GRACE_MS,
    ];
    const claimable = claimFor !== undefined && !debounced && album === '';
    let turnId = '';
    let holder = '';
    if (claimable) {
      turnId = randomUUID();
      holder = `${claimFor}/${randomUUID()}`;
      keyList.push(keys.turns, keys.held(claimFor));
      args.push(this.options.leaseMs, turnId, holder);
    }
    const reply = await this.#scripts.run<[string, string?, string?]>('enqueue', keyList, args);
    if (reply[0] === 'duplicate') return { kind: 'duplicate' };
    if (reply[0] !== 'claimed') return { kind: 'queued', running: Number(reply[1]) };
    // the message as a worker would read it back from the queue
    const messages = [JSON.parse(payload) as InboundMessage];
    return {
      kind: 'claimed',
      claim: { kind: 'acquired', turnId, holder, messages, resumed: false, historyVersion: reply[1] ?? '', attempt: 1, round: 0, conversation: conversationOf(reply[2]) },
    };
  }

  /**
   * Up to `count` sessions of the shard for `workerId`: first those waiting for it as their worker (placement, or the
   * worker that released them with messages waiting), then the shard's that are due, which stay scheduled `claimMs`
   * later until acquired.
   */
  async popDue(shard: number, count: number, workerId: string, claimMs = this.options.leaseMs): Promise<DueSessions> {
    const keys = this.keys.shard(shard);
    const [now, next, ...sessionKeys] = await this.#scripts.run<string[]>('pop-due', [keys.sched, keys.wake, keys.preferred(workerId)], [count, claimMs]);
    return { now: Number(now), nextDueAt: next ? Number(next) : undefined, sessionKeys };
  }

  /** `holder` identifies this worker (`<workerId>/<token>`): its turns are found and taken back if it dies. */
  async acquire(sessionKey: string, workerId: string): Promise<AcquireResult> {
    const keys = this.keys.session(sessionKey);
    const holder = `${workerId}/${randomUUID()}`;
    const { leaseMs, debounceMs, albumWaitMs } = this.options;
    const reply = await this.#scripts.run<string[]>(
      'acquire',
      [keys.pending, keys.meta, keys.turns, keys.sched, keys.wake, keys.alive, keys.held(workerId)],
      [sessionKey, this.limitFor(sessionKey), leaseMs, this.modeOf(sessionKey), debounceMs, albumWaitMs, randomUUID(), holder, MAX_CLAIM],
    );
    if (reply[0] !== 'acquired') return { kind: reply[0] as 'empty' | 'busy' | 'waiting' };
    return {
      kind: 'acquired',
      turnId: reply[1]!,
      holder,
      messages: inPlatformOrder(JSON.parse(reply[2]!) as InboundMessage[]),
      resumed: reply[3] === '1',
      historyVersion: reply[4] ?? '',
      attempt: Number(reply[5]),
      round: Number(reply[6]),
      conversation: conversationOf(reply[7]),
    };
  }

  /** Only the current holder renews; a holder whose turn was taken over learns it here. */
  async renew(sessionKey: string, turnId: string, holder: string): Promise<'ok' | 'aborted' | 'lost'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run('renew', [keys.turns, keys.sched], [turnId, holder, this.options.leaseMs, sessionKey]);
  }

  /**
   * `history`: the turn was stored, having started at history version `base`; the session's version moves on to
   * `next` (newHistoryVersion()) when it still stands at `base`, to another new one otherwise. `handOff`: the
   * releasing worker is stopping; a session with messages waiting is any worker's at once, not its own first.
   */
  async release(sessionKey: string, turnId: string, holder: string, history?: { base: string; next: string }, handOff = false): Promise<ReleaseResult> {
    const keys = this.keys.session(sessionKey);
    const reply = await this.#scripts.run<string[]>(
      'release',
      [
        keys.meta,
        keys.turns,
        keys.sched,
        keys.wake,
        keys.held(workerOf(holder)),
        keys.steps(turnId),
        keys.delivery(turnId),
        keys.earlyAnswer(turnId),
        keys.preferred(workerOf(holder)),
      ],
      [turnId, holder, sessionKey, this.limitFor(sessionKey), history?.next ?? '', history?.base ?? '', handOff ? 0 : (this.options.placementGraceMs ?? PLACEMENT_GRACE_MS)],
    );
    return reply[0] === 'released' ? { kind: 'released', historyVersion: reply[1] ?? '' } : { kind: 'lost' };
  }

  /** A worker that stops: the sessions waiting for it go to any worker. */
  async handBackPreferred(workerId: string): Promise<number> {
    let handed = 0;
    for (const shard of this.keys.shards()) {
      handed += await this.#scripts.run<number>('hand-back-preferred', [shard.preferred(workerId), shard.sched, shard.wake], []);
    }
    return handed;
  }

  /** A worker that stops: sessions its last pop took and it will not run are due now for any worker. */
  async handBack(shard: number, sessionKeys: string[]): Promise<number> {
    const keys = this.keys.shard(shard);
    return this.#scripts.run<number>('hand-back', [keys.sched, keys.wake], sessionKeys);
  }

  /** A failed turn goes back to the head, same id, to run again after `delayMs` (0: handed back on shutdown). */
  async requeue(sessionKey: string, turnId: string, holder: string, retry: { delayMs: number; attempt: number; round: number }): Promise<'requeued' | 'dropped' | 'lost'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run(
      'requeue',
      [keys.pending, keys.meta, keys.turns, keys.sched, keys.wake, keys.held(workerOf(holder))],
      [turnId, holder, sessionKey, Math.max(0, Math.round(retry.delayMs)), retry.attempt, retry.round],
    );
  }

  /**
   * An attempt failed a retryable way: its reason is kept (a dead letter carries every attempt's reason). Returns
   * when the turn first failed, and Redis's clock now; undefined when another holder has the turn.
   */
  async recordFailure(sessionKey: string, turnId: string, holder: string, failure: { round: number; attempt: number; reason: string }): Promise<{ firstFailedAt: number; now: number } | undefined> {
    const keys = this.keys.session(sessionKey);
    const reply = await this.#scripts.run<string[]>(
      'record-failure',
      [keys.turns, keys.failures(turnId)],
      [turnId, holder, failure.round, failure.attempt, failure.reason.slice(0, MAX_REASON_CHARS), FAILURES_KEPT_MS, MAX_FAILURES_KEPT],
    );
    return reply[0] === 'recorded' ? { firstFailedAt: Number(reply[1]), now: Number(reply[2]) } : undefined;
  }

  /** The turn failed every round: its messages become a dead letter (retried or discarded by an operator); then release it. */
  async deadLetter(sessionKey: string, turnId: string, holder: string, error: string): Promise<'dead' | 'lost'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run('dead-letter', [keys.turns, keys.failures(turnId), keys.deadLetters, keys.deadLetter(turnId)], [turnId, holder, sessionKey, error.slice(0, MAX_REASON_CHARS), DEAD_LETTER_TTL_MS]);
  }

  /** The turn waits for a person: it keeps its slot until `untilMs` without a worker. */
  async park(sessionKey: string, turnId: string, holder: string, untilMs: number): Promise<'parked' | 'resume' | 'aborted' | 'lost'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run(
      'park',
      [keys.turns, keys.sched, keys.wake, keys.held(workerOf(holder)), keys.earlyAnswer(turnId)],
      [turnId, holder, Math.round(untilMs), sessionKey],
    );
  }

  /** An answer came: the parked turn runs again at the next acquire (same id, resumed). */
  async unpark(sessionKey: string, turnId: string): Promise<'unparked' | 'not-parked'> {
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run('unpark', [keys.turns, keys.sched, keys.wake, keys.earlyAnswer(turnId)], [turnId, sessionKey]);
  }

  /** Marks running turns aborted and drops everything waiting. */
  async stop(sessionKey: string): Promise<StopResult> {
    const keys = this.keys.session(sessionKey);
    const reply = await this.#scripts.run<string[]>('stop', [keys.pending, keys.meta, keys.turns, keys.sched], [sessionKey]);
    const running = Number(reply[1]);
    const waiting = Number(reply[2]);
    return {
      droppedMessages: Number(reply[0]),
      abortedTurnIds: reply.slice(3, 3 + running),
      waitingTurnIds: reply.slice(3 + running, 3 + running + waiting),
    };
  }

  /** Marks the running turns aborted without dropping what waits; returns their ids. */
  async interrupt(sessionKey: string): Promise<string[]> {
    return this.#scripts.run('interrupt', [this.keys.session(sessionKey).turns], []);
  }

  /**
   * The whole queue for the console and metrics: turns running (held by live workers), sessions due to start one
   * now, and sessions scheduled for later (a debounce, a retry's backoff, a parked turn's deadline, a lease's
   * backstop). A few commands per shard: for an operator's page or a metrics scrape, never per message.
   */
  async load(): Promise<{ running: number; due: number; scheduled: number }> {
    let running = 0;
    let due = 0;
    let scheduled = 0;
    for (const shard of this.keys.shards()) {
      const now = Date.now();
      const [workers, dueNow, all] = await Promise.all([this.redis.hkeys(shard.alive), this.redis.zcount(shard.sched, '-inf', now), this.redis.zcard(shard.sched)]);
      const [held, placed] = await Promise.all([
        Promise.all(workers.map((worker) => this.redis.scard(shard.held(worker)))),
        // waiting for their own worker: due now, though the shard's schedule has them a grace later
        Promise.all(workers.map((worker) => this.redis.zcard(shard.preferred(worker)))),
      ]);
      const waitingForTheirWorker = placed.reduce((sum, count) => sum + count, 0);
      running += held.reduce((sum, count) => sum + count, 0);
      due += dueNow + waitingForTheirWorker;
      scheduled += Math.max(0, all - dueNow - waitingForTheirWorker);
    }
    return { running, due, scheduled };
  }

  async depth(sessionKey: string): Promise<{ pending: number; active: number }> {
    const [pending, active] = await this.redis.hmget(this.keys.session(sessionKey).meta, 'p', 'n');
    return { pending: Number(pending ?? 0), active: Number(active ?? 0) };
  }

  /**
   * /new: turns claimed from now on belong to a new conversation (see lua/new-conversation.lua); `stored` is the
   * session's conversation in PostgreSQL, the floor when Redis has none. Returns the new conversation's number.
   */
  async newConversation(sessionKey: string, stored: number): Promise<number> {
    return this.#scripts.run<number>('new-conversation', [this.keys.session(sessionKey).meta], [stored, newHistoryVersion()]);
  }

  /** The session's conversation as the queue counts it (see newConversation); undefined: it has none (PostgreSQL's). */
  async conversationOf(sessionKey: string): Promise<number | undefined> {
    return conversationOf((await this.redis.hget(this.keys.session(sessionKey).meta, 'c')) ?? undefined);
  }

  /** A summary: turns that cached the session's history load it again. */
  async historyChanged(sessionKey: string): Promise<void> {
    await this.redis.hset(this.keys.session(sessionKey).meta, 'hv', newHistoryVersion());
  }

  /** Remembers a thread/topic session under its chat, so a chat-level /stop reaches it (kept a week after last use). */
  async trackThreadSession(chatSessionKey: string, sessionKey: string): Promise<void> {
    if (chatSessionKey === sessionKey) return;
    const key = this.keys.session(chatSessionKey).threads;
    await this.redis.multi().sadd(key, sessionKey).expire(key, THREAD_SESSIONS_TTL_SECONDS).exec();
  }

  async threadSessionsOf(chatSessionKey: string): Promise<string[]> {
    return this.redis.smembers(this.keys.session(chatSessionKey).threads);
  }

  /**
   * Once-only handling of a message that never reaches the queue (a command, unaddressed group chatter, a refusal):
   * true for the first claim. Shares the queue's seen key, so a redelivery is known for a day whatever path it took.
   */
  async claimSeen(sessionKey: string, dedupeKey: string, kind: 'command' | 'context' | 'access'): Promise<boolean> {
    return (await this.redis.set(this.keys.session(sessionKey).seen(dedupeKey), kind, 'EX', SEEN_TTL_SECONDS, 'NX')) === 'OK';
  }

  /** Handling failed: the platform's retry may try again. */
  async forgetSeen(sessionKey: string, dedupeKey: string): Promise<void> {
    await this.redis.del(this.keys.session(sessionKey).seen(dedupeKey));
  }
}

/** A history version: random, so a session whose meta was lost never matches a version cached before. */
/** A claim's conversation: undefined when the session had none in Redis (the turn takes PostgreSQL's). */
function conversationOf(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

export function newHistoryVersion(): string {
  return randomUUID().slice(0, 13);
}

/** The worker of a holder token `<workerId>/<token>`. */
export function workerOf(holder: string): string {
  return holder.slice(0, holder.indexOf('/'));
}

/**
 * A running turn as the scripts store it in the session's `turns` hash (see lua/common.lua), for a test fixture that
 * holds a turn without going through a queue.
 */
export function runningTurnValue(holder: string, expiryMs: number, body = '[]'): string {
  return [holder, String(expiryMs), '', '1', '0', '0', body].join(FIELD);
}

/**
 * Messages answered together, in the platform's order (they may have reached us in another: two webhook
 * deliveries racing, a redelivery). Arrival order stays where the platform gives none.
 */
export function inPlatformOrder(messages: InboundMessage[]): InboundMessage[] {
  if (messages.length < 2 || messages.some((message) => typeof message.platformOrder !== 'number')) return messages;
  return [...messages].sort((a, b) => a.platformOrder! - b.platformOrder!);
}
