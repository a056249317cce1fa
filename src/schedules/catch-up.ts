import type { ScheduleSpec } from './schedule-spec.js';
import { nextRunAfter } from './schedule-spec.js';

type RepeatingSpec = Pick<ScheduleSpec, 'kind' | 'schedule' | 'timezone'>;

/**
 * The rule after an outage (README, Scheduled tasks): a firing handed over half a period or more after its time
 * is a catch-up. It runs once for all the times missed, and the next firing is the first regular time at least
 * half a period after the catch-up, so a late catch-up is not followed moments later by the next time: two
 * firings of a task are never less than half a period apart. Half, not a whole period: a daily task caught up in
 * the afternoon still runs tomorrow morning. For a cron task the period is the gap between two of its times.
 */
export function periodAt(spec: RepeatingSpec, slotAt: number): number {
  if (spec.kind === 'every') return Number(spec.schedule) * 1000;
  const next = nextRunAfter(spec, slotAt);
  return next ? next.getTime() - slotAt : Infinity;
}

export function isCatchUp(spec: RepeatingSpec, slotAt: number, now: number): boolean {
  return spec.kind !== 'at' && now - slotAt >= periodAt(spec, slotAt) / 2;
}

/** The first regular time at least half a period after `now`, for a catch-up of the time `slotAt`. */
export function firstRunAfterCatchUp(spec: RepeatingSpec, slotAt: number, now: number): Date {
  if (spec.kind === 'every') {
    const every = Number(spec.schedule) * 1000;
    // the times are slotAt + k·every (BullMQ keeps the first time's offset); the first one after now:
    const first = slotAt + (Math.floor((now - slotAt) / every) + 1) * every;
    return new Date(first - now >= every / 2 ? first : first + every);
  }
  const first = nextRunAfter(spec, now)!.getTime();
  const second = nextRunAfter(spec, first)!.getTime();
  return new Date(first - now >= (second - first) / 2 ? first : second);
}
