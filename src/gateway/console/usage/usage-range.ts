import { ConsoleRequestError, type UsageQueryParameters } from '../query-parameters.js';

const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_USAGE_DAYS = 30;
export const MAX_USAGE_DAYS = 366;

export interface DayRange {
  /** `YYYY-MM-DD`, both inclusive, UTC. */
  from: string;
  to: string;
  /** Every day of the range, in order. */
  days: string[];
  /** Start of `from` and of the day after `to`, for the query. */
  start: Date;
  until: Date;
}

/**
 * `from` / `to` (UTC days, inclusive). Unset `to`: today; unset `from`: the 30 days ending at `to`.
 * Format errors are caught by the schema (`format: date`); here the order and the length of the range.
 */
export function usageRange(query: UsageQueryParameters, now: Date): DayRange {
  const to = query.to ?? now.toISOString().slice(0, 10);
  const from = query.from ?? dayOf(startOf(to).getTime() - (DEFAULT_USAGE_DAYS - 1) * DAY_MS);
  const start = startOf(from);
  const until = new Date(startOf(to).getTime() + DAY_MS);
  if (start >= until) throw new ConsoleRequestError(400, `from (${from}) is after to (${to})`);
  const count = Math.round((until.getTime() - start.getTime()) / DAY_MS);
  if (count > MAX_USAGE_DAYS) throw new ConsoleRequestError(400, `the range from ${from} to ${to} is ${count} days; at most ${MAX_USAGE_DAYS} at a time`);
  const days = Array.from({ length: count }, (_, index) => dayOf(start.getTime() + index * DAY_MS));
  return { from, to, days, start, until };
}

function startOf(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`);
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
