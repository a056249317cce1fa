import { TAKEOVER_LOG_LINE, type FaultEvent } from './chaos.js';
import type { SoakMessage } from './load.js';
import type { LogLine } from './service.js';

/** What one kind of fault did, as the verdict reports it (issue 53). */
export interface FaultKindReport {
  count: number;
  /** Turns taken over from workers found dead (WorkerBeat's log line, one per shard, with its turns), in the minute after a fault of this kind. */
  takenOver: number;
  /** Parts left in doubt and how each was settled (`channel:resolution`), in the minute after. */
  inDoubt: Record<string, number>;
  /** The longest a user waited (first POST → answer in the chat) for a message in flight during a fault of this kind. */
  longestWaitMs: number | undefined;
  /** Warnings and errors the processes logged in the minute after, by source and message (the most frequent first). */
  errors: Record<'redis' | 'postgres' | 'other', Record<string, number>>;
}

const AFTER_MS = 60_000;
const IN_DOUBT_LOG_LINE = 'a part a dead or failed attempt may have sent was settled';

/** The ports the service reaches Redis and PostgreSQL on (an `ECONNREFUSED 127.0.0.1:<port>` names its server by it). */
export interface ServerPorts {
  redis: number[];
  postgres: number[];
}

/** Which server an error came from, by the port it names, else by its message and code (ioredis's and postgres.js's words). */
export function errorSource(line: LogLine, ports: ServerPorts = { redis: [], postgres: [] }): 'redis' | 'postgres' | 'other' {
  const err = (line.err ?? line.error ?? {}) as { message?: string; code?: string; type?: string };
  const text = `${line.msg} ${err.type ?? ''} ${err.message ?? ''} ${err.code ?? ''}`;
  for (const [, port] of text.matchAll(/:(\d{2,5})\b/g)) {
    if (ports.redis.includes(Number(port))) return 'redis';
    if (ports.postgres.includes(Number(port))) return 'postgres';
  }
  if (/redis|cluster|MOVED|ASK|TRYAGAIN|READONLY|LOADING|MaxRetriesPerRequest|Connection is closed|Stream isn't writeable|enableOfflineQueue|bullmq|lease|beat/i.test(text)) return 'redis';
  if (/postgres|database|sql|CONNECTION_(ENDED|CLOSED|DESTROYED)|terminat|57P|08[0-9]{3}|pgbouncer|server conn|flush|store/i.test(text)) return 'postgres';
  return 'other';
}

/** A log line's error as one short key: its message (numbers and ids blanked, so that alike errors count together). */
function errorKey(line: LogLine): string {
  const err = (line.err ?? line.error) as { message?: string; code?: string } | undefined;
  const detail = err?.message ? `: ${err.code ? `${err.code} ` : ''}${err.message}` : '';
  return `${line.msg}${detail}`.replace(/\d+(\.\d+)*/g, 'N').replace(/[0-9a-f]{8,}/gi, 'X').slice(0, 160);
}

/**
 * The verdict's view per fault kind. A log line is put down to the latest fault that began before it (within a
 * minute), so overlapping faults do not count a line twice; lines before any fault or long after one go to
 * `(no fault)`.
 */
export function faultReport(events: FaultEvent[], lines: LogLine[], messages: SoakMessage[], ports?: ServerPorts): Record<string, FaultKindReport> {
  const report: Record<string, FaultKindReport> = {};
  const entry = (what: string) =>
    (report[what] ??= { count: 0, takenOver: 0, inDoubt: {}, longestWaitMs: undefined, errors: { redis: {}, postgres: {}, other: {} } });
  for (const event of events) entry(event.what).count += 1;
  const ordered = [...events].sort((a, b) => a.at - b.at);
  const blame = (time: number) => {
    const event = ordered.filter((candidate) => candidate.at <= time).at(-1);
    return event && time <= event.endedAt + AFTER_MS ? event.what : '(no fault)';
  };
  for (const line of lines) {
    const kind = entry(blame(line.time));
    if (line.msg === TAKEOVER_LOG_LINE) kind.takenOver += Number(line.turns ?? 0);
    else if (line.msg === IN_DOUBT_LOG_LINE) {
      const key = `${String(line.channel)}:${String(line.resolution)}`;
      kind.inDoubt[key] = (kind.inDoubt[key] ?? 0) + 1;
    } else {
      const bucket = kind.errors[errorSource(line, ports)];
      const key = errorKey(line);
      bucket[key] = (bucket[key] ?? 0) + 1;
    }
  }
  for (const event of events) {
    const kind = entry(event.what);
    for (const message of messages) {
      if (message.answeredAt === undefined || message.firstPostAt > event.endedAt || message.answeredAt < event.at) continue;
      kind.longestWaitMs = Math.max(kind.longestWaitMs ?? 0, message.answeredAt - message.firstPostAt);
    }
  }
  // the most frequent errors first, at most eight of each source
  for (const kind of Object.values(report)) {
    for (const source of ['redis', 'postgres', 'other'] as const) {
      kind.errors[source] = Object.fromEntries(Object.entries(kind.errors[source]).sort((a, b) => b[1] - a[1]).slice(0, 8));
    }
  }
  return report;
}
