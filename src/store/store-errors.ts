/**
 * SQLSTATE classes no retry can fix: data exceptions (22), integrity violations (23), syntax or access
 * rule violations (42) and program limits such as a value too large (54). Anything else — connections
 * refused or reset, admin shutdown (57), serialization failures (40) — may pass, and is retried.
 */
const PERMANENT_SQLSTATE_CLASSES = new Set(['22', '23', '42', '54']);

/** True when storing failed for good: the same statement would fail again. */
export function isPermanentStoreError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof RangeError || current instanceof TypeError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return PERMANENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
