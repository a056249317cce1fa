import type { Redis } from 'ioredis';
import { LIMIT_FIELDS, type BudgetLimits } from './budget-limits.js';

const FIELDS = Object.values(LIMIT_FIELDS);

/**
 * The default daily limits as the operator set them in the console, shared by every process:
 * `<prefix>:budget-limits` HASH userDailyUsd|chatDailyUsd|agentDailyUsd → USD. A field set here replaces the
 * BUDGET_* variable; the config file's agents, accounts and groups still override it. Cleared: the variable applies again.
 */
export class BudgetSettings {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  get #key(): string {
    return `${this.prefix}:budget-limits`;
  }

  async overrides(): Promise<BudgetLimits> {
    const stored = await this.redis.hgetall(this.#key);
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
    const pipeline = this.redis.multi();
    if (set.length > 0) pipeline.hset(this.#key, Object.fromEntries(set.map(([field, value]) => [field, String(value)])));
    if (cleared.length > 0) pipeline.hdel(this.#key, ...cleared);
    await pipeline.exec();
  }
}
