import type { HttpLimits } from '../config/http-limits.js';

export { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../config/http-limits.js';

/** Node checks for expired requests on a timer; it must tick often enough for the timeouts to hold. */
export function connectionsCheckingIntervalMs(limits: HttpLimits): number {
  return Math.max(250, Math.min(30_000, Math.floor(Math.min(limits.requestTimeoutMs, limits.headersTimeoutMs) / 4)));
}
