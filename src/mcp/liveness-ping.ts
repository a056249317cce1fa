import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { failureKind } from './call-errors.js';

/**
 * The liveness ping of a connected server: a `ping` every `intervalMs` (0: off), one at a time. Two unanswered
 * pings in a row, or one that cannot be sent, report the server unresponsive; an answer clears the count.
 */
export class LivenessPing {
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #inFlight = false;
  /** Bumped by every start and stop: a ping of an earlier run reports nothing. */
  #run = 0;

  constructor(private readonly intervalMs: number) {}

  start(client: Client, onUnresponsive: (error: unknown) => void): void {
    if (this.intervalMs <= 0) return;
    const run = ++this.#run;
    this.#failures = 0;
    this.#timer = setInterval(() => void this.#ping(run, client, onUnresponsive), this.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    this.#run += 1;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#inFlight = false;
  }

  async #ping(run: number, client: Client, onUnresponsive: (error: unknown) => void): Promise<void> {
    if (this.#inFlight || run !== this.#run) return;
    this.#inFlight = true;
    try {
      await client.request({ method: 'ping' }, ResultSchema, { timeout: Math.min(this.intervalMs, 10_000) });
      this.#failures = 0;
    } catch (error) {
      if (run !== this.#run) return;
      this.#failures += 1;
      if (failureKind(error) === 'transport' || this.#failures >= 2) onUnresponsive(error);
    } finally {
      if (run === this.#run) this.#inFlight = false;
    }
  }
}
