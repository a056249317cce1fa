import { CronExpressionParser } from 'cron-parser';
import { ToolError } from '../agent/tools/agent-tool.js';
import type { ScheduleKind } from '../store/schema/scheduled-tasks.js';

export interface ScheduleRequest {
  at?: string | undefined;
  cron?: string | undefined;
  every_seconds?: number | undefined;
  timezone?: string | undefined;
}

export interface ScheduleSpec {
  kind: ScheduleKind;
  /** ISO time (`at`), the five cron fields (`cron`), seconds (`every`). */
  schedule: string;
  timezone: string;
  /** When it fires first. */
  firstRun: Date;
}

export interface ScheduleLimits {
  minIntervalSeconds: number;
}

/** How many upcoming cron firings are compared to find its shortest gap (covers every minute of a day's hour fields). */
const CRON_GAPS_CHECKED = 200;

export function serviceTimezone(): string {
  return process.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function isTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a `schedule_task` request (CONTRACT §12): exactly one of `at`, `cron`, `every_seconds`; a known IANA time
 * zone; `at` in the future; repeats no more often than the minimum interval. A refusal is a ToolError the model
 * can explain to the user.
 */
export function parseSchedule(request: ScheduleRequest, limits: ScheduleLimits, now: number): ScheduleSpec {
  const given = [request.at, request.cron, request.every_seconds].filter((value) => value !== undefined && value !== '');
  if (given.length !== 1) throw new ToolError('Give exactly one of at (an ISO 8601 time), cron (5 fields) or every_seconds.');
  const timezone = request.timezone?.trim() || serviceTimezone();
  if (!isTimezone(timezone)) throw new ToolError(`Unknown time zone "${timezone}": use an IANA name such as Europe/Berlin or America/New_York.`);
  if (request.at !== undefined && request.at !== '') return parseAt(request.at, timezone, now);
  if (request.cron !== undefined && request.cron !== '') return parseCron(request.cron, timezone, limits, now);
  return parseEvery(request.every_seconds!, timezone, limits, now);
}

function parseAt(at: string, timezone: string, now: number): ScheduleSpec {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(at.trim())) throw new ToolError(`"${at}" is not an ISO 8601 time like 2026-05-01T09:00:00Z.`);
  const time = parseIsoIn(at.trim(), timezone);
  if (Number.isNaN(time)) throw new ToolError(`"${at}" is not a valid time.`);
  if (time <= now) throw new ToolError(`${new Date(time).toISOString()} is in the past (now it is ${new Date(now).toISOString()}); choose a later time.`);
  return { kind: 'at', schedule: new Date(time).toISOString(), timezone, firstRun: new Date(time) };
}

/** An ISO time with an offset (or Z) is absolute; without one it is read as wall-clock time in `timezone`. */
function parseIsoIn(text: string, timezone: string): number {
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(text)) return Date.parse(text);
  const asUtc = Date.parse(`${text}Z`);
  if (Number.isNaN(asUtc)) return asUtc;
  // the zone's offset at that moment (twice: the first guess may sit across a DST change)
  let guess = asUtc - offsetOf(asUtc, timezone);
  guess = asUtc - offsetOf(guess, timezone);
  return guess;
}

function offsetOf(time: number, timezone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(time));
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  const wall = Date.UTC(value('year'), value('month') - 1, value('day'), value('hour'), value('minute'), value('second'));
  return wall - Math.floor(time / 1000) * 1000;
}

function parseCron(cron: string, timezone: string, limits: ScheduleLimits, now: number): ScheduleSpec {
  const expression = cron.trim().replace(/\s+/g, ' ');
  if (expression.split(' ').length !== 5) throw new ToolError(`"${cron}" is not a 5-field cron expression (minute hour day-of-month month day-of-week).`);
  let times: number[];
  try {
    const parsed = CronExpressionParser.parse(expression, { tz: timezone, currentDate: new Date(now) });
    times = Array.from({ length: CRON_GAPS_CHECKED }, () => parsed.next().getTime());
  } catch (error) {
    throw new ToolError(`"${cron}" is not a valid cron expression: ${error instanceof Error ? error.message : String(error)}`);
  }
  let shortest = Infinity;
  for (let index = 1; index < times.length; index++) shortest = Math.min(shortest, times[index]! - times[index - 1]!);
  if (shortest < limits.minIntervalSeconds * 1000) {
    throw new ToolError(`"${cron}" fires every ${Math.round(shortest / 1000)} seconds; the shortest allowed interval is ${limits.minIntervalSeconds} seconds.`);
  }
  return { kind: 'cron', schedule: expression, timezone, firstRun: new Date(times[0]!) };
}

function parseEvery(seconds: number, timezone: string, limits: ScheduleLimits, now: number): ScheduleSpec {
  if (!Number.isInteger(seconds) || seconds <= 0) throw new ToolError('every_seconds must be a positive whole number.');
  if (seconds < limits.minIntervalSeconds) throw new ToolError(`every_seconds is ${seconds}; the shortest allowed interval is ${limits.minIntervalSeconds} seconds.`);
  return { kind: 'every', schedule: String(seconds), timezone, firstRun: new Date(nextEvery(seconds, now)) };
}

/** BullMQ's `every` fires on multiples of the interval since the epoch. */
export function nextEvery(seconds: number, now: number): number {
  const every = seconds * 1000;
  return Math.floor(now / every) * every + every;
}

/** The firing after `after` (for the task list's "next run"); undefined for a one-shot that has fired. */
export function nextRunAfter(spec: Pick<ScheduleSpec, 'kind' | 'schedule' | 'timezone'>, after: number): Date | undefined {
  switch (spec.kind) {
    case 'at': {
      const time = Date.parse(spec.schedule);
      return time > after ? new Date(time) : undefined;
    }
    case 'every':
      return new Date(nextEvery(Number(spec.schedule), after));
    case 'cron':
      return CronExpressionParser.parse(spec.schedule, { tz: spec.timezone, currentDate: new Date(after) }).next().toDate();
  }
}
