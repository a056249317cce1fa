import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/store/iso-timestamp.js';

describe('isoTimestamp: toISOString with the minute formatted once', () => {
  it('gives what toISOString gives, across minutes, hours, days and years, in and out of order', () => {
    const times: number[] = [0, 59_999, 60_000, 1, 951_782_400_000 /* 2000-02-29 */, 253_402_300_799_999 /* 9999-12-31T23:59:59.999 */];
    const start = Date.UTC(2026, 11, 31, 23, 58, 59, 990);
    for (let step = 0; step < 3_000; step += 1) times.push(start + step * 61);
    let seed = 42;
    for (let draw = 0; draw < 5_000; draw += 1) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      times.push(Math.floor((seed / 2_147_483_648) * 253_402_300_800_000));
      times.push(times[times.length - 1]! + (seed % 7) - 3);
    }
    const differing = times.filter((ms) => ms >= 0 && isoTimestamp(ms) !== new Date(ms).toISOString());
    expect(differing).toEqual([]);
    expect(isoTimestamp(Date.UTC(2026, 10, 28, 18, 4, 5, 7))).toBe('2026-11-28T18:04:05.007Z');
  });
});
