import { describe, expect, it } from 'vitest';
import { firstRunAfterCatchUp, isCatchUp, periodAt } from '../../src/schedules/catch-up.js';

const every = (seconds: number) => ({ kind: 'every' as const, schedule: String(seconds), timezone: 'UTC' });
const cron = (expression: string, timezone = 'UTC') => ({ kind: 'cron' as const, schedule: expression, timezone });
const at = (iso: string) => Date.parse(iso);

describe('catch-up rule', () => {
  it('a firing half a period or more late is a catch-up; one moments late is not', () => {
    const slot = at('2026-05-04T09:00:00Z');
    expect(isCatchUp(every(3600), slot, slot + 2_000)).toBe(false);
    expect(isCatchUp(every(3600), slot, slot + 1_799_000)).toBe(false);
    expect(isCatchUp(every(3600), slot, slot + 1_800_000)).toBe(true);
    expect(isCatchUp(cron('0 9 * * *'), slot, slot + 60_000)).toBe(false);
    expect(isCatchUp(cron('0 9 * * *'), slot, slot + 13 * 3_600_000)).toBe(true);
    expect(periodAt(cron('0 9 * * 1-5'), at('2026-05-08T09:00:00Z'))).toBe(3 * 24 * 3_600_000); // Friday → Monday
  });

  it('every: the next firing is the first regular time at least half a period after the catch-up', () => {
    const slot = at('2026-05-04T09:00:00Z');
    // caught up at 10:50: 11:00 is ten minutes away and skipped; 12:00 is next
    expect(firstRunAfterCatchUp(every(3600), slot, at('2026-05-04T10:50:00Z')).toISOString()).toBe('2026-05-04T12:00:00.000Z');
    // caught up at 10:20: 11:00 is forty minutes away and stays
    expect(firstRunAfterCatchUp(every(3600), slot, at('2026-05-04T10:20:00Z')).toISOString()).toBe('2026-05-04T11:00:00.000Z');
    // times keep the task's own offset (BullMQ's first time is creation + interval, not a multiple of it)
    expect(firstRunAfterCatchUp(every(5), 1_000_003_000, 1_000_016_500).getTime()).toBe(1_000_023_000);
    expect(firstRunAfterCatchUp(every(5), 1_000_003_000, 1_000_015_000).getTime()).toBe(1_000_018_000);
  });

  it('cron: the first time at least half the schedule gap after the catch-up', () => {
    const daily = cron('0 9 * * *', 'Europe/Berlin');
    // caught up at 08:59 Berlin: today's 09:00 is a minute away and skipped
    expect(firstRunAfterCatchUp(daily, at('2026-05-03T07:00:00Z'), at('2026-05-04T06:59:00Z')).toISOString()).toBe('2026-05-05T07:00:00.000Z');
    // caught up in the afternoon: tomorrow's 09:00 stays
    expect(firstRunAfterCatchUp(daily, at('2026-05-03T07:00:00Z'), at('2026-05-04T14:00:00Z')).toISOString()).toBe('2026-05-05T07:00:00.000Z');
    // weekdays: caught up on Saturday, Monday stays
    expect(firstRunAfterCatchUp(cron('0 9 * * 1-5'), at('2026-05-08T09:00:00Z'), at('2026-05-09T10:00:00Z')).toISOString()).toBe('2026-05-11T09:00:00.000Z');
  });
});
