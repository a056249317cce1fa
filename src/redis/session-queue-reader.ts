import type { InboundMessage } from '../core/inbound-message.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

const SEP = '\x1f';
/** Sessions read per shard at most, in the order they are due (the schedule holds every session with work). */
export const MAX_SESSIONS_PER_SHARD = 200;
/** Pending entries read per session at most (the counts stay exact: they come from the session's meta). */
export const MAX_ENTRIES_PER_SESSION = 50;

/** A pending entry (see lua/common.lua): a message, or a turn put back (a retry's backoff, a takeover, an operator's Retry). */
export interface PendingEntry {
  kind: 'message' | 'turn';
  /** The message's dedupe key, or the turn's id. */
  id: string;
  /** A message: when it arrived; a turn put back: when it may run again (0: now). */
  at: number;
  album: string;
  attempt: number;
  round: number;
  messages: InboundMessage[];
}

/** A turn holding one of its session's slots: run by a worker, or parked on an approval (no worker). */
export interface HeldTurn {
  turnId: string;
  /** The worker id (`<host>-<pid>-<n>`); undefined while parked. */
  worker: string | undefined;
  parked: boolean;
  /** When its lease (or, parked, its approval's deadline) ends. */
  expiresAt: number;
  /** Stopped: it ends at its holder's next look. */
  aborted: boolean;
  attempt: number;
  round: number;
  /** Its claim order in the session. */
  seq: number;
  messages: InboundMessage[];
}

/** A session with work: in the shard's schedule, due at `dueAt` (a debounce, an album, a backoff, a lease's backstop). */
export interface QueuedSession {
  sessionKey: string;
  shard: number;
  dueAt: number;
  /** Pending entries (exact), running turns (exact). */
  pending: number;
  running: number;
  /** The first MAX_ENTRIES_PER_SESSION pending entries, in the order they run. */
  entries: PendingEntry[];
  turns: HeldTurn[];
}

export interface QueueSnapshot {
  /** Redis's clock when read. */
  now: number;
  /** In the order they are due. */
  sessions: QueuedSession[];
  /** Some shard held more sessions than were read. */
  truncated: boolean;
  /** Workers beating now, with when their beat expires. */
  workers: Array<{ workerId: string; aliveUntil: number; turns: number }>;
}

/**
 * The session queue read for an operator (the queue view, /status, the metrics scrape): read on demand only, never
 * on a message's way, and bounded: at most MAX_SESSIONS_PER_SHARD sessions per shard (earliest due first) and
 * MAX_ENTRIES_PER_SESSION entries each, one pipelined round trip per shard (its keys share one slot).
 */
export class SessionQueueReader {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: KeySpace,
    private readonly options: { maxSessionsPerShard?: number; maxEntriesPerSession?: number } = {},
  ) {}

  async snapshot(): Promise<QueueSnapshot> {
    const maxSessions = this.options.maxSessionsPerShard ?? MAX_SESSIONS_PER_SHARD;
    const maxEntries = this.options.maxEntriesPerSession ?? MAX_ENTRIES_PER_SESSION;
    const [seconds, micros] = await this.redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const sessions: QueuedSession[] = [];
    const workers = new Map<string, { workerId: string; aliveUntil: number; turns: number }>();
    let truncated = false;
    for (const shard of this.keys.shards()) {
      const [scheduled, alive, total] = await Promise.all([
        maxSessions > 0 ? this.redis.zrange(shard.sched, '0', String(maxSessions - 1), 'WITHSCORES') : Promise.resolve([] as string[]),
        this.redis.hgetall(shard.alive),
        this.redis.zcard(shard.sched),
      ]);
      if (total > maxSessions) truncated = true;
      for (const [workerId, until] of Object.entries(alive)) {
        if (Number(until) > now && !workers.has(workerId)) workers.set(workerId, { workerId, aliveUntil: Number(until), turns: 0 });
      }
      const due: Array<[string, number]> = [];
      for (let index = 0; index < scheduled.length; index += 2) due.push([scheduled[index]!, Number(scheduled[index + 1])]);
      if (due.length === 0) continue;
      const pipeline = this.redis.pipeline();
      for (const [sessionKey] of due) {
        const keys = this.keys.session(sessionKey);
        pipeline.hmget(keys.meta, 'p', 'n');
        pipeline.hgetall(keys.turns);
        pipeline.lrange(keys.pending, 0, maxEntries - 1);
      }
      const replies = (await pipeline.exec()) ?? [];
      due.forEach(([sessionKey, dueAt], index) => {
        const [meta, turns, pending] = [0, 1, 2].map((offset) => {
          const [error, value] = replies[index * 3 + offset] ?? [null, null];
          if (error) throw error;
          return value;
        }) as [Array<string | null>, Record<string, string>, string[]];
        const held = Object.entries(turns ?? {}).map(([turnId, value]) => heldTurn(turnId, value));
        for (const turn of held) {
          const worker = turn.worker ? workers.get(turn.worker) : undefined;
          if (worker) worker.turns += 1;
        }
        sessions.push({
          sessionKey,
          shard: shard.shard,
          dueAt,
          pending: Number(meta?.[0] ?? 0),
          running: Number(meta?.[1] ?? 0),
          entries: (pending ?? []).map(pendingEntry),
          turns: held.sort((a, b) => a.seq - b.seq),
        });
      });
    }
    sessions.sort((a, b) => a.dueAt - b.dueAt);
    return { now, sessions, truncated, workers: [...workers.values()] };
  }

  /** The approval requests a parked turn made (at most MAX_APPROVALS_READ), with their tool and state. */
  async approvalsOf(sessionKey: string, turnId: string): Promise<Array<{ id: string; toolName: string; status: string; deadlineMs: number }>> {
    const ids = (await this.redis.smembers(this.keys.session(sessionKey).approvals(turnId))).slice(0, MAX_APPROVALS_READ);
    const records = await Promise.all(ids.map((id) => this.redis.hmget(this.keys.approval(id), 'toolName', 'status', 'deadlineMs')));
    return ids.map((id, index) => {
      const [toolName, status, deadline] = records[index]!;
      return { id, toolName: toolName ?? '', status: status ?? 'unknown', deadlineMs: Number(deadline ?? 0) };
    });
  }
}

const MAX_APPROVALS_READ = 10;

/**
 * Why a session's pending entries do not run now: a turn put back waits out its backoff, or the session waits out
 * a debounce, an album or the placement grace (undefined: they wait only for a free slot or a worker).
 */
export function sessionDelay(session: QueuedSession, now: number, limit: number): { until: number; why: string } | undefined {
  const head = session.entries[0];
  if (head?.kind === 'turn' && head.at > now) return { until: head.at, why: head.attempt > 1 || head.round > 0 ? 'retry backoff' : 'handed back' };
  if (session.running >= limit) return undefined;
  if (session.dueAt > now) return { until: session.dueAt, why: head?.album ? 'album: waiting for its other parts' : 'debounce or placement grace' };
  return undefined;
}

/** A turn that failed before (a retry, a takeover) and runs or waits to run again. */
export const isRetrying = (turn: { attempt: number; round: number }): boolean => turn.attempt > 1 || turn.round > 0;

/** The session queue's turns and messages by state, from one snapshot (see SessionQueueReader). */
export interface TurnCounts {
  /** Turns a worker runs now. */
  running: number;
  /** Turns holding a slot while they wait for a person's approval. */
  parked: number;
  /** Pending entries (messages, turns put back) that may run as soon as a slot and a worker are free. */
  waiting: number;
  /** Pending entries waiting out a debounce, an album, a retry's backoff or the placement grace. */
  delayed: number;
  /** Turns that failed before and run, or wait to run, again. */
  retrying: number;
  /** Dead letters: turns abandoned after every retry. */
  failed: number;
  /** 1 while an operator has paused turns. */
  paused: number;
}

export function countTurns(snapshot: QueueSnapshot, limitFor: (sessionKey: string) => number, failed: number, paused: boolean): TurnCounts {
  const counts: TurnCounts = { running: 0, parked: 0, waiting: 0, delayed: 0, retrying: 0, failed, paused: paused ? 1 : 0 };
  for (const session of snapshot.sessions) {
    for (const turn of session.turns) {
      if (turn.parked) counts.parked += 1;
      else counts.running += 1;
      if (isRetrying(turn)) counts.retrying += 1;
    }
    for (const entry of session.entries) if (entry.kind === 'turn' && isRetrying(entry)) counts.retrying += 1;
    if (sessionDelay(session, snapshot.now, limitFor(session.sessionKey))) counts.delayed += session.pending;
    else counts.waiting += session.pending;
  }
  return counts;
}

function parseBody(body: string): InboundMessage[] {
  try {
    // a turn's conversation may ride before its JSON (`<conversation>\x1f<JSON>`, lua/common.lua)
    const parsed = JSON.parse(body.slice(body.indexOf(SEP) + 1)) as unknown;
    return Array.isArray(parsed) ? (parsed as InboundMessage[]) : [parsed as InboundMessage];
  } catch {
    return [];
  }
}

/** `entry`: kind, id, arrived ms, album id, flags, attempt, round, payload (lua/common.lua). */
function pendingEntry(raw: string): PendingEntry {
  const fields = raw.split(SEP);
  const payload = fields.slice(7).join(SEP);
  return {
    kind: fields[0] === 't' ? 'turn' : 'message',
    id: fields[1] ?? '',
    at: Number(fields[2] ?? 0),
    album: fields[3] ?? '',
    attempt: Number(fields[5] || 1),
    round: Number(fields[6] || 0),
    messages: parseBody(payload),
  };
}

/** `turn`: holder, expiry ms, flags, attempt, round, seq, body (lua/common.lua). */
function heldTurn(turnId: string, raw: string): HeldTurn {
  const fields = raw.split(SEP);
  const holder = fields[0] ?? '';
  const parked = holder === 'parked';
  return {
    turnId,
    worker: parked ? undefined : holder.slice(0, Math.max(0, holder.indexOf('/'))) || undefined,
    parked,
    expiresAt: Number(fields[1] ?? 0),
    aborted: fields[2] === 'a',
    attempt: Number(fields[3] || 1),
    round: Number(fields[4] || 0),
    seq: Number(fields[5] || 0),
    messages: parseBody(fields.slice(6).join(SEP)),
  };
}
