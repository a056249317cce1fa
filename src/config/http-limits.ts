/**
 * How long a client may take and how many connections one address may hold. Webhooks are answered
 * within a second, so these only ever cut off clients that send slowly or hoard connections.
 */
export interface HttpLimits {
  /** The whole request, headers and body, must arrive within this; otherwise 408 and the connection is closed. */
  requestTimeoutMs: number;
  /** The headers must arrive within this (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed. */
  connectionTimeoutMs: number;
  /** Concurrent connections one remote address may hold; 0: no cap (behind a reverse proxy every client shares its address). */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  // above the 60 s idle timeout of common load balancers, so they never reuse a connection we are closing
  keepAliveTimeoutMs: 72_000,
  connectionTimeoutMs: 90_000,
  maxConnectionsPerAddress: 256,
};
