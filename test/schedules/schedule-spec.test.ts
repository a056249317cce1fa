import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/agent/tools/agent-tool.js';
import { nextRunAfter, parseSchedule } from '../../src/schedules/schedule-spec.js';
import { chatKeyOf } from '../../src/schedules/schedule-service.js';
import { isChatGone } from '../../src/schedules/firing-outcome.js';

const NOW = Date.parse('2026-03-28T12:00:00Z'); // the day before Europe/Berlin switches to summer time
const limits = { minIntervalSeconds: 60 };
const refusal = (request: Parameters<typeof parseSchedule>[0]) => {
  try {
    parseSchedule(request, limits, NOW);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('parseSchedule', () => {
  it('reads `at` with an offset as absolute and without one as wall-clock time in the time zone', () => {
    expect(parseSchedule({ at: '2026-03-28T15:00:00Z' }, limits, NOW).firstRun.toISOString()).toBe('2026-03-28T15:00:00.000Z');
    expect(parseSchedule({ at: '2026-03-28T15:00:00+02:00' }, limits, NOW).firstRun.toISOString()).toBe('2026-03-28T13:00:00.000Z');
    expect(parseSchedule({ at: '2026-03-28T15:00', timezone: 'Europe/Berlin' }, limits, NOW).firstRun.toISOString()).toBe('2026-03-28T14:00:00.000Z');
    // after the DST switch Berlin is UTC+2
    expect(parseSchedule({ at: '2026-03-30T09:00', timezone: 'Europe/Berlin' }, limits, NOW).firstRun.toISOString()).toBe('2026-03-30T07:00:00.000Z');
  });

  it('runs cron in its time zone across a DST change', () => {
    const spec = parseSchedule({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, limits, NOW);
    expect(spec).toMatchObject({ kind: 'cron', schedule: '0 9 * * *', timezone: 'Europe/Berlin' });
    expect(spec.firstRun.toISOString()).toBe('2026-03-29T07:00:00.000Z');
    expect(nextRunAfter(spec, spec.firstRun.getTime())!.toISOString()).toBe('2026-03-30T07:00:00.000Z');
  });

  it('refuses: none or several kinds, `at` in the past, intervals under the minimum, bad cron, unknown zones', () => {
    expect(refusal({})).toMatch(/exactly one of/);
    expect(refusal({ at: '2026-04-01T00:00:00Z', every_seconds: 3600 })).toMatch(/exactly one of/);
    expect(refusal({ at: '2026-03-28T11:59:00Z' })).toMatch(/is in the past/);
    expect(refusal({ at: 'tomorrow' })).toMatch(/not an ISO 8601 time/);
    expect(refusal({ every_seconds: 59 })).toMatch(/shortest allowed interval is 60 seconds/);
    expect(refusal({ cron: '*/30 * * * * *' })).toMatch(/not a 5-field cron/);
    expect(refusal({ cron: '61 * * * *' })).toMatch(/not a valid cron expression/);
    expect(refusal({ cron: '0 9 * * *', timezone: 'Nowhere/Special' })).toMatch(/Unknown time zone/);
    // every minute is allowed at 60 s; a burst inside an hour is judged by its shortest gap
    expect(parseSchedule({ cron: '* * * * *' }, limits, NOW).kind).toBe('cron');
    expect(() => parseSchedule({ cron: '0,1 9 * * *' }, { minIntervalSeconds: 120 }, NOW)).toThrow(/fires every 60 seconds/);
  });

  it('`every` starts one interval from now', () => {
    expect(parseSchedule({ every_seconds: 3600 }, limits, NOW).firstRun.getTime()).toBeGreaterThan(NOW);
  });
});

describe('task helpers', () => {
  it('a thread or topic belongs to its chat', () => {
    expect(chatKeyOf('agent:main:slack:T1:group:C1:thread:171.2')).toBe('agent:main:slack:T1:group:C1');
    expect(chatKeyOf('agent:main:telegram:b:group:-100:topic:7')).toBe('agent:main:telegram:b:group:-100');
    expect(chatKeyOf('agent:main:telegram:b:dm:42')).toBe('agent:main:telegram:b:dm:42');
  });

  it('recognizes platforms saying the bot left the chat', () => {
    expect(isChatGone('delivery failed: Forbidden: bot was kicked from the group chat')).toBe(true);
    expect(isChatGone('delivery failed: An API error occurred: channel_not_found')).toBe(true);
    expect(isChatGone('delivery failed: Bad Request: message is too long')).toBe(false);
  });
});
