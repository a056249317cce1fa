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
}

function parseBody(body: string): InboundMessage[] {
  try {
    const parsed = JSON.parse(body) as unknown;
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
