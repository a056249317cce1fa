import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import { scanKeys } from './scan-keys.js';
import { LuaScripts } from './lua-scripts.js';

/** Who a call is charged to, as ids: `<channel>:<userId>`, `<channel>:<accountId>:<chatId>`, the agent id. */
export interface BudgetSubjectIds {
  user: string;
  chat: string;
  agent: string;
}

/** [0] reserved | [1, scope 1..3, notify 0|1] refused | [2, scope] busy (see reserve-budget.lua) */
export type ReserveReply = [0] | [1, number, number] | [2, number];

const SCRIPTS = { 'reserve-budget': 4, 'settle-budget': 3, 'add-spends': 'any' } as const;

/**
 * Today's spend per user, chat and agent (HASH spent, reserved in nano-USD), all of one UTC day under the day's
 * hash tag, so one script reserves over the three scopes at once; and the console's limits.
 */
export class BudgetStore {
  readonly #scripts: LuaScripts<keyof typeof SCRIPTS>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.#scripts = new LuaScripts(redis, SCRIPTS);
  }

  spendKeys(day: string, subject: BudgetSubjectIds): [string, string, string] {
    const keys = this.keys.budgetDay(day);
    return [keys.user(subject.user), keys.chat(subject.chat), keys.agent(subject.agent)];
  }

  reserve(day: string, subject: BudgetSubjectIds, limitsNanos: number[], nanos: number, ttlSeconds: number, final: boolean): Promise<ReserveReply> {
    return this.#scripts.run('reserve-budget', [...this.spendKeys(day, subject), this.keys.budgetDay(day).notice(subject.chat)], [...limitsNanos, nanos, ttlSeconds, final ? 1 : 0]);
  }

  async settle(keys: [string, string, string], reservedNanos: number, actualNanos: number, ttlSeconds: number): Promise<void> {
    await this.#scripts.run('settle-budget', keys, [reservedNanos, actualNanos, ttlSeconds]);
  }

  /**
   * Adds spend that was never reserved (calls under no limit, batched by the ledger): HINCRBY spent on each key,
   * EXPIRE on the keys named in `expire`. All keys of one day share its hash tag: one script call a day (a batch
   * holds two keys a message, and a command each cost the client more than the rest of the batch).
   */
  async addSpends(byDay: Map<string, { spends: Map<string, number>; expire: string[]; ttlSeconds: number }>): Promise<void> {
    await Promise.all(
      [...byDay.values()].map(async ({ spends, expire, ttlSeconds }) => {
        const toExpire = new Set(expire);
        const keys = [...new Set([...spends.keys(), ...expire])];
        const args = keys.map((key) => `${spends.get(key) ?? 0}${toExpire.has(key) ? 'e' : ''}`);
        await this.#scripts.run('add-spends', keys, [ttlSeconds, ...args]);
      }),
    );
  }

  /** settled + reserved nano-USD of each key, in order (keys of one day: one slot, one round trip). */
  async spends(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hmget(key, 'spent', 'reserved');
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, values]) => {
      if (error) throw error;
      const [spent, reserved] = values as Array<string | null>;
      return Math.max(0, Number(spent ?? 0) + Number(reserved ?? 0));
    });
  }

  /** Every scope with spend on `day`: `{ scope, id, nanos }` from a scan of the day's keys. */
  async spendOfDay(day: string): Promise<Array<{ scope: string; id: string; nanos: number }>> {
    const dayKeys = this.keys.budgetDay(day);
    const prefix = dayKeys.all.slice(0, -1);
    const keys = (await scanKeys(this.redis, dayKeys.all)).filter((key) => !key.startsWith(dayKeys.notice('')));
    const spends = await this.spends(keys);
    return keys.map((key, index) => {
      const rest = key.slice(prefix.length);
      const colon = rest.indexOf(':');
      return { scope: rest.slice(0, colon), id: rest.slice(colon + 1), nanos: spends[index]! };
    });
  }

  async limits(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.budgetLimits);
  }

  /** Sets the given fields and clears the others named. */
  async updateLimits(set: Record<string, string>, cleared: string[]): Promise<void> {
    const transaction = this.redis.multi();
    if (Object.keys(set).length > 0) transaction.hset(this.keys.budgetLimits, set);
    if (cleared.length > 0) transaction.hdel(this.keys.budgetLimits, ...cleared);
    await transaction.exec();
  }
}
