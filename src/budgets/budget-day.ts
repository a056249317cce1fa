const DAY_MS = 86_400_000;
/** Keys outlive their day by this much, so a call running across midnight settles on the day it reserved on. */
const GRACE_SECONDS = 3_600;

/** The day `utcDay` formatted last: every budget check of a model call asks for it, and it is nearly always today. */
let lastDay = { index: Number.NaN, text: '' };

/** The UTC day of a moment, `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  const index = Math.floor(now / DAY_MS);
  if (index !== lastDay.index) lastDay = { index, text: new Date(now).toISOString().slice(0, 10) };
  return lastDay.text;
}

/** The next UTC midnight after a moment: when today's budgets reset. */
export function nextUtcMidnight(now: number): Date {
  return new Date(Math.floor(now / DAY_MS) * DAY_MS + DAY_MS);
}

/** Seconds a key of this day lives. */
export function dayKeyTtlSeconds(now: number): number {
  return Math.ceil((nextUtcMidnight(now).getTime() - now) / 1000) + GRACE_SECONDS;
}
