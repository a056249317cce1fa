import type { BudgetStore } from '../redis/budget-store.js';
import type { Invalidations } from '../redis/invalidations.js';
import { LIMIT_FIELDS, type BudgetLimits } from './budget-limits.js';

const FIELDS = Object.values(LIMIT_FIELDS);

const TOPIC = 'budget-limits';

/**
 * The default daily limits as the operator set them in the console, shared by every process (a Redis hash
 * userDailyUsd|chatDailyUsd|agentDailyUsd → USD). A field set here replaces the BUDGET_* variable; the config
 * file's agents, accounts and groups still override it. Cleared: the variable applies again. Each process keeps
 * the last read until the console changes them (an invalidation reaches every process), so a turn reads nothing.
 */
export class BudgetSettings {
  #cached: Promise<BudgetLimits> | undefined;

  constructor(
    private readonly store: BudgetStore,
    private readonly invalidations?: Invalidations,
  ) {
    invalidations?.on(TOPIC, () => (this.#cached = undefined), () => (this.#cached = undefined));
  }

  /** The console's limits, from this process's copy when it has one. */
  overrides(): Promise<BudgetLimits> {
    if (!this.#cached) {
      const reading = this.read();
      this.#cached = reading;
      // a failed read is not kept
      reading.catch(() => {
        if (this.#cached === reading) this.#cached = undefined;
      });
    }
    return this.#cached;
  }

  private async read(): Promise<BudgetLimits> {
    const stored = await this.store.limits();
    const limits: BudgetLimits = {};
    for (const field of FIELDS) {
      const value = Number(stored[field]);
      if (stored[field] !== undefined && Number.isFinite(value) && value >= 0) limits[field] = value;
    }
    return limits;
  }

  /** Sets the given fields; a field given as null is cleared. */
  async update(changes: { [Field in keyof BudgetLimits]?: number | null }): Promise<void> {
    const set = Object.entries(changes).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
    const cleared = Object.entries(changes).filter(([, value]) => value === null).map(([field]) => field);
    await this.store.updateLimits(Object.fromEntries(set.map(([field, value]) => [field, String(value)])), cleared);
    this.#cached = undefined;
    await this.invalidations?.publish(TOPIC);
  }
}
