import type { Logger } from '../observability/logger.js';

/**
 * The time a stop may take, all of it within SHUTDOWN_GRACE_MS: running turns may finish until `turnsEndAt`;
 * the rest (handing unfinished turns back, closing queues, Redis, PostgreSQL, the embedded redis-server) has
 * until `deadline`. The closing part gets a fifth of the grace, at least 1 s and at most 5 s.
 */
export interface StopBudget {
  turnsEndAt: number;
  deadline: number;
}

export function stopBudget(graceMs: number, now = Date.now()): StopBudget {
  const closingMs = Math.min(5_000, Math.max(1_000, Math.floor(graceMs / 5)));
  return { turnsEndAt: now + Math.max(0, graceMs - closingMs), deadline: now + Math.max(graceMs, closingMs) };
}

export type StopStep = (budget: StopBudget) => Promise<unknown>;

/**
 * What a service must stop, in the reverse order of starting. Each step is awaited until the deadline at most:
 * one that fails or overruns is logged and left behind, and the next one runs.
 */
export class StopSteps {
  private readonly steps: Array<{ name: string; stop: StopStep }> = [];

  constructor(private readonly logger: Logger) {}

  add(name: string, stop: StopStep): void {
    this.steps.push({ name, stop });
  }

  /** Runs every step; rejects at the end when one of them overran the deadline. */
  async run(budget: StopBudget): Promise<void> {
    const overran: string[] = [];
    for (const { name, stop } of this.steps.splice(0).reverse()) {
      this.logger.debug({ step: name }, 'stopping');
      const outcome = await settleBefore(Promise.resolve().then(() => stop(budget)), budget.deadline);
      if (outcome.kind === 'failed') this.logger.warn({ err: outcome.error, step: name }, 'error while stopping; going on');
      if (outcome.kind === 'overran') {
        overran.push(name);
        this.logger.warn({ step: name }, 'still not stopped at the end of SHUTDOWN_GRACE_MS; leaving it');
      }
    }
    if (overran.length > 0) throw new Error(`not stopped within SHUTDOWN_GRACE_MS: ${overran.join(', ')}`);
  }
}

type Outcome = { kind: 'done' } | { kind: 'failed'; error: unknown } | { kind: 'overran' };

/** Settles with the promise, or as overran at `deadline` (the promise is left running). */
export function settleBefore(promise: Promise<unknown>, deadline: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'overran' }), Math.max(0, deadline - Date.now()));
    promise.then(
      () => {
        clearTimeout(timer);
        resolve({ kind: 'done' });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ kind: 'failed', error });
      },
    );
  });
}
