import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { QueueMode } from '../config/app-config.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { isGroupSessionKey } from '../core/session-key.js';
import { queueLua } from './lua-scripts.js';
import { ACQUIRE, DEPTH, ENQUEUE, INTERRUPT, MARK_QUEUED, PARK, RELEASE, RENEW, REQUEUE, STOP, UNPARK } from './scheduler-scripts.js';

const SEEN_TTL_SECONDS = 24 * 60 * 60;
const THREAD_SESSIONS_TTL_SECONDS = 7 * 24 * 60 * 60;

export type EnqueueResult = 'new' | 'registered' | 'duplicate';

export type AcquireResult =
  | { kind: 'empty' }
  | { kind: 'busy' | 'debounce'; waitMs: number }
  | { kind: 'acquired'; turnId: string; holder: string; messages: InboundMessage[]; wakeJobId: string | undefined; resumed: boolean };

export type ReleaseResult =
  | { kind: 'lost' }
  | { kind: 'wake'; jobId: string }
  | { kind: 'orphan' }
  | { kind: 'idle'; parkedJobIds: string[] };

export interface StopResult {
  droppedMessages: number;
  abortedTurnIds: string[];
  /** Turns waiting for an approval: no worker runs them, so the caller settles their approvals as stopped. */
  waitingTurnIds: string[];
  parkedJobIds: string[];
}

export interface SchedulerOptions {
  prefix: string;
  groupMaxConcurrent: number;
  /** The default mode; `modeFor` may choose another per session (config file overrides). */
  mode: QueueMode;
  modeFor?: (sessionKey: string) => QueueMode;
  leaseMs: number;
  debounceMs: number;
  /** MEDIA_GROUP_WAIT_MS: how long an album's newest part is given for the rest to arrive. */
  albumWaitMs?: number;
  /** This worker process's id (worker-liveness.ts): every holder token begins with it, so a dead worker's leases can be told. */
  workerId?: string;
}

type ScriptRunner = (...args: string[]) => Promise<unknown>;
type ExpireDeadScript = (leases: string, holders: string, ...workerIds: string[]) => Promise<number>;

/**
 * Per-session slots and ordering, enforced in Redis so any number of gateways and workers agree.
 * BullMQ jobs only wake a session up; the session's pending set is the truth (see scheduler-scripts.ts).
 */
export class SessionScheduler {
  private readonly scripts: Record<string, ScriptRunner>;
  readonly #expireDead: ExpireDeadScript;

  constructor(
    private readonly redis: Redis,
    readonly options: SchedulerOptions,
  ) {
    const definitions = { ENQUEUE, MARK_QUEUED, ACQUIRE, RENEW, RELEASE, REQUEUE, STOP, INTERRUPT, DEPTH, PARK, UNPARK };
    this.scripts = {};
    for (const [name, lua] of Object.entries(definitions)) {
      const command = `scheduler${name}`;
      if (!(command in redis)) redis.defineCommand(command, { numberOfKeys: 0, lua });
      const bound = (redis as unknown as Record<string, ScriptRunner>)[command]!;
      this.scripts[name] = bound.bind(redis);
    }
    if (!('expireDeadLeases' in redis)) redis.defineCommand('expireDeadLeases', { numberOfKeys: 2, lua: queueLua('expire-dead-leases.lua') });
    this.#expireDead = (redis as unknown as Record<string, ExpireDeadScript>).expireDeadLeases!.bind(redis);
  }

  private base(sessionKey: string): string {
    return `${this.options.prefix}:s:{${sessionKey}}`;
  }

  private seenKey(dedupeKey: string): string {
    return `${this.options.prefix}:seen:${dedupeKey}`;
  }

  modeOf(sessionKey: string): QueueMode {
    return this.options.modeFor?.(sessionKey) ?? this.options.mode;
  }

  limitFor(sessionKey: string): number {
    return isGroupSessionKey(sessionKey) ? this.options.groupMaxConcurrent : 1;
  }

  async enqueue(sessionKey: string, message: InboundMessage): Promise<EnqueueResult> {
    const limit = String(this.limitFor(sessionKey));
    const [result] = (await this.scripts.ENQUEUE!(
      this.base(sessionKey),
      this.seenKey(message.dedupeKey),
      message.dedupeKey,
      JSON.stringify(message),
      limit,
      String(SEEN_TTL_SECONDS),
      message.mediaGroupId ?? '',
    )) as [EnqueueResult];
    return result;
  }

  async markQueued(message: InboundMessage): Promise<void> {
    await this.scripts.MARK_QUEUED!('', this.seenKey(message.dedupeKey), String(SEEN_TTL_SECONDS));
  }

  async acquire(sessionKey: string, jobId: string): Promise<AcquireResult> {
    const { leaseMs, debounceMs } = this.options;
    const holder = `${this.options.workerId ?? 'worker'}/${randomUUID()}`;
    const reply = (await this.scripts.ACQUIRE!(
      this.base(sessionKey),
      jobId,
      String(this.limitFor(sessionKey)),
      String(leaseMs),
      this.modeOf(sessionKey),
      String(debounceMs),
      randomUUID(),
      holder,
      String(this.options.albumWaitMs ?? 0),
    )) as string[];
    switch (reply[0]) {
      case 'empty':
        return { kind: 'empty' };
      case 'busy':
      case 'debounce':
        return { kind: reply[0], waitMs: Number(reply[1]) };
      case 'acquired':
        return {
          kind: 'acquired',
          turnId: reply[1]!,
          holder,
          messages: inPlatformOrder(JSON.parse(reply[2]!) as InboundMessage[]),
          wakeJobId: reply[3] || undefined,
          resumed: reply[4] === '1',
        };
      default:
        throw new Error(`scheduler: unexpected acquire reply ${String(reply[0])}`);
    }
  }

  /** Only the current holder renews; a holder whose turn was taken over learns it here. */
  async renew(sessionKey: string, turnId: string, holder: string): Promise<'ok' | 'aborted' | 'lost'> {
    return (await this.scripts.RENEW!(this.base(sessionKey), turnId, String(this.options.leaseMs), holder)) as
      | 'ok'
      | 'aborted'
      | 'lost';
  }

  async release(sessionKey: string, turnId: string, holder: string): Promise<ReleaseResult> {
    const reply = (await this.scripts.RELEASE!(this.base(sessionKey), turnId, holder)) as string[];
    if (reply[0] === 'lost') return { kind: 'lost' };
    if (reply[0] === 'wake') return { kind: 'wake', jobId: reply[1]! };
    if (reply[0] === 'orphan') return { kind: 'orphan' };
    return { kind: 'idle', parkedJobIds: reply.slice(1) };
  }

  /** Puts a failed turn's messages back at the head, same turn id, for a retry. */
  async requeue(sessionKey: string, turnId: string, holder: string): Promise<'requeued' | 'dropped' | 'lost'> {
    return (await this.scripts.REQUEUE!(this.base(sessionKey), turnId, holder)) as 'requeued' | 'dropped' | 'lost';
  }

  /** Expires now the session's leases held by dead workers (see expire-dead-leases.lua); how many. */
  async expireLeasesOf(sessionKey: string, deadWorkerIds: string[]): Promise<number> {
    if (deadWorkerIds.length === 0) return 0;
    const base = this.base(sessionKey);
    return this.#expireDead(`${base}:leases`, `${base}:holders`, ...deadWorkerIds);
  }

  /** Marks running turns aborted and drops everything waiting. */
  async stop(sessionKey: string): Promise<StopResult> {
    const reply = (await this.scripts.STOP!(this.base(sessionKey))) as string[];
    const activeCount = Number(reply[1]);
    const waitingCount = Number(reply[2]);
    return {
      droppedMessages: Number(reply[0]),
      abortedTurnIds: reply.slice(3, 3 + activeCount),
      waitingTurnIds: reply.slice(3 + activeCount, 3 + activeCount + waitingCount),
      parkedJobIds: reply.slice(3 + activeCount + waitingCount),
    };
  }

  /** The turn waits for a person: it keeps its slot until `untilMs` without a worker (see PARK). */
  async park(sessionKey: string, turnId: string, holder: string, untilMs: number): Promise<'parked' | 'resume' | 'aborted' | 'lost'> {
    return (await this.scripts.PARK!(this.base(sessionKey), turnId, holder, String(Math.round(untilMs)))) as 'parked' | 'resume' | 'aborted' | 'lost';
  }

  /** An answer came: the parked turn goes back to a worker at the next acquire (same turn id, resumed). */
  async unpark(sessionKey: string, turnId: string): Promise<'unparked' | 'not-parked'> {
    return (await this.scripts.UNPARK!(this.base(sessionKey), turnId)) as 'unparked' | 'not-parked';
  }

  /** Marks the running turns aborted without dropping what waits; returns their ids. */
  async interrupt(sessionKey: string): Promise<string[]> {
    return (await this.scripts.INTERRUPT!(this.base(sessionKey))) as string[];
  }

  /** Remembers a thread/topic session under its chat, so a chat-level /stop reaches it (kept a week after last use). */
  async trackThreadSession(chatSessionKey: string, sessionKey: string): Promise<void> {
    if (chatSessionKey === sessionKey) return;
    const key = this.threadsKey(chatSessionKey);
    await this.redis.multi().sadd(key, sessionKey).expire(key, THREAD_SESSIONS_TTL_SECONDS).exec();
  }

  async threadSessionsOf(chatSessionKey: string): Promise<string[]> {
    return this.redis.smembers(this.threadsKey(chatSessionKey));
  }

  private threadsKey(chatSessionKey: string): string {
    return `${this.options.prefix}:threads:{${chatSessionKey}}`;
  }

  /** Counts the rounds of attempts a turn has used up (a round ends with the job's last attempt). */
  async countLateRound(sessionKey: string, turnId: string): Promise<number> {
    const key = `${this.base(sessionKey)}:rounds:${turnId}`;
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, SEEN_TTL_SECONDS).exec()) as [[unknown, number], unknown];
    return count;
  }

  async depth(sessionKey: string): Promise<{ pending: number; active: number }> {
    const [pending, active] = (await this.scripts.DEPTH!(this.base(sessionKey))) as [number, number];
    return { pending, active };
  }
}

/**
 * Messages answered together, in the platform's order (they may have reached us in another: two webhook
 * deliveries racing, a redelivery). Arrival order stays where the platform gives none.
 */
export function inPlatformOrder(messages: InboundMessage[]): InboundMessage[] {
  if (messages.length < 2 || messages.some((message) => typeof message.platformOrder !== 'number')) return messages;
  return [...messages].sort((a, b) => a.platformOrder! - b.platformOrder!);
}
