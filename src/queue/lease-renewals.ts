/**
 * The lease renewals of a worker's running turns on one timer: every `periodMs` each turn that ran through a whole
 * period is renewed, all in the same tick (their scripts leave together and their replies come back together),
 * instead of a timer of each turn waking the process at its own moment. A turn quicker than a period (most, at a
 * model's usual pace: TURN_LEASE_MS 15 s, a period of 5 s) is never renewed; a turn that starts just after a tick is
 * first renewed at the tick after next, at most two periods after it began, well within its lease (three periods).
 */
export class LeaseRenewals {
  readonly #leases = new Map<object, { renew: () => void; due: boolean }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly periodMs: number) {}

  get size(): number {
    return this.#leases.size;
  }

  /** Renews with `renew` from the next tick but one; the returned function stops it. */
  add(renew: () => void): () => void {
    const token = {};
    this.#leases.set(token, { renew, due: false });
    this.#timer ??= setInterval(() => this.#tick(), this.periodMs);
    return () => {
      this.#leases.delete(token);
      if (this.#leases.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  #tick(): void {
    for (const lease of this.#leases.values()) {
      // a turn added since the last tick has run less than a period: renewed at the next one
      if (lease.due) lease.renew();
      else lease.due = true;
    }
  }
}
