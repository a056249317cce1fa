/** The minute the last timestamp fell in, and its ISO text up to the seconds (`2026-11-28T18:04:`). */
let minuteStart = Number.NaN;
let minutePrefix = '';

/**
 * `new Date(ms).toISOString()` for a time from 1970 to 9999, with the date and minute formatted once per minute:
 * a turn's flush writes half a dozen timestamps, and `toISOString` costs about 1 µs each.
 */
export function isoTimestamp(ms: number): string {
  let offset = ms - minuteStart;
  if (!(offset >= 0 && offset < 60_000)) {
    minuteStart = ms - (ms % 60_000);
    minutePrefix = new Date(minuteStart).toISOString().slice(0, 17);
    offset = ms - minuteStart;
  }
  const seconds = Math.floor(offset / 1000);
  const millis = offset - seconds * 1000;
  return `${minutePrefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
