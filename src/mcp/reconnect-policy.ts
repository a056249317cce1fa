/** Delay before reconnecting: `initialMs` doubling up to `maxMs`. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/**
 * When an MCP server is tried again: after each failure the delay doubles from `initialMs` up to `maxMs`; a
 * connection that stayed up `stableMs` before it failed starts over from `initialMs`. It also remembers when the
 * current streak of failures began, so the first failure is news and the retries that follow are not.
 */
export class ReconnectPolicy {
  #attempt = 0;
  #upSince = 0;
  #failingSince: number | undefined;

  constructor(
    private readonly backoff: Backoff,
    private readonly stableMs: number,
    private readonly clock: () => number,
  ) {}

  /** The server is up: how long it had been down (undefined when it never failed). */
  connected(): number | undefined {
    const now = this.clock();
    this.#upSince = now;
    const downForMs = this.#failingSince === undefined ? undefined : now - this.#failingSince;
    this.#failingSince = undefined;
    return downForMs;
  }

  /** A connection that was up is lost: after a stable stretch, the backoff starts over. */
  lostWhileUp(): void {
    if (this.clock() - this.#upSince >= this.stableMs) this.#attempt = 0;
  }

  /** A failure: the wait before the next attempt, that attempt's number, and whether it starts a streak. */
  failed(): { delayMs: number; attempt: number; firstFailure: boolean } {
    const delayMs = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.#attempt);
    this.#attempt += 1;
    const firstFailure = this.#failingSince === undefined;
    this.#failingSince ??= this.clock();
    return { delayMs, attempt: this.#attempt, firstFailure };
  }
}
