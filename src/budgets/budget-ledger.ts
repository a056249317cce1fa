import type { Redis } from 'ioredis';
import { BUDGET_SCOPES, LIMIT_FIELDS, type BudgetLimits, type BudgetScope } from './budget-limits.js';
import { dayKeyTtlSeconds, nextUtcMidnight, utcDay } from './budget-day.js';
import { luaScript } from './lua-scripts.js';

/** Spend is counted in integer nano-dollars: INCRBY is exact, and a double holds up to $9M of them exactly. */
const NANOS_PER_USD = 1e9;
const toNanos = (usd: number): number => Math.ceil(usd * NANOS_PER_USD);

/** Who a model call is charged to: one user, one chat, one agent. */
export interface BudgetSubject {
  /** `<channel>:<userId>` */
  user: string;
  /** `<channel>:<accountId>:<chatId>` */
  chat: string;
  agent: string;
}

export interface Reservation {
  keys: [string, string, string];
  nanos: number;
}

export type ReserveOutcome =
  | { kind: 'reserved'; reservation: Reservation }
  /** The settled spend reached the limit. `notify`: the first refusal in this chat today. */
  | { kind: 'refused'; scope: BudgetScope; limitUsd: number; notify: boolean; resetsAt: Date }
  /** The limit is reached only counting calls still running: ask again when they have settled. */
  | { kind: 'busy'; scope: BudgetScope };

type ReserveResult = [0] | [1, number, number] | [2, number];

interface BudgetCommands {
  reserveBudget(user: string, chat: string, agent: string, notice: string, ...argv: Array<string | number>): Promise<ReserveResult>;
  settleBudget(user: string, chat: string, agent: string, ...argv: Array<string | number>): Promise<number[]>;
}

/**
 * Today's spend per user, chat and agent in Redis, shared by every process. Keys:
 *   {<prefix>:budget:<day>}:user:<channel>:<userId>            HASH spent, reserved in nano-USD (reserve-budget.lua)
 *   {<prefix>:budget:<day>}:chat:<channel>:<accountId>:<chatId>
 *   {<prefix>:budget:<day>}:agent:<agentId>
 *   {<prefix>:budget:<day>}:notice:<channel>:<accountId>:<chatId>  the chat was told today
 * All of a day's keys share one hash tag, and expire an hour after the day ends.
 */
export class BudgetLedger {
  readonly #redis: Redis & BudgetCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    if (!('reserveBudget' in redis)) redis.defineCommand('reserveBudget', { numberOfKeys: 4, lua: luaScript('reserve-budget.lua') });
    if (!('settleBudget' in redis)) redis.defineCommand('settleBudget', { numberOfKeys: 3, lua: luaScript('settle-budget.lua') });
    this.#redis = redis as Redis & BudgetCommands;
  }

  #base(now: number): string {
    return `{${this.prefix}:budget:${utcDay(now)}}`;
  }

  spendKeys(subject: BudgetSubject, now: number): [string, string, string] {
    const base = this.#base(now);
    return [`${base}:user:${subject.user}`, `${base}:chat:${subject.chat}`, `${base}:agent:${subject.agent}`];
  }

  /**
   * One round trip: reserves `expectedUsd` on all three budgets, or refuses when one of them is used up, or says
   * it is busy when only calls in flight hold it up (`final`: refuse then as well).
   */
  async reserve(subject: BudgetSubject, limits: BudgetLimits, expectedUsd: number, now: number, final = false): Promise<ReserveOutcome> {
    const keys = this.spendKeys(subject, now);
    const limitArgs = BUDGET_SCOPES.map((scope) => {
      const limit = limits[LIMIT_FIELDS[scope]];
      return limit === undefined ? -1 : toNanos(limit);
    });
    const nanos = toNanos(expectedUsd);
    const notice = `${this.#base(now)}:notice:${subject.chat}`;
    const result = await this.#redis.reserveBudget(...keys, notice, ...limitArgs, nanos, dayKeyTtlSeconds(now), final ? 1 : 0);
    if (result[0] === 0) return { kind: 'reserved', reservation: { keys, nanos } };
    const scope = BUDGET_SCOPES[result[1] - 1]!;
    if (result[0] === 2) return { kind: 'busy', scope };
    return { kind: 'refused', scope, limitUsd: limits[LIMIT_FIELDS[scope]]!, notify: result[2] === 1, resetsAt: nextUtcMidnight(now) };
  }

  /** One round trip: the reservation becomes the real cost. */
  async settle(reservation: Reservation, actualUsd: number, now: number): Promise<void> {
    await this.#redis.settleBudget(...reservation.keys, reservation.nanos, toNanos(actualUsd), dayKeyTtlSeconds(now));
  }

  /** Today's spend of each scope of a subject in USD, counting what calls in flight have reserved. */
  async spentToday(subject: BudgetSubject, now: number): Promise<Record<BudgetScope, number>> {
    const [user, chat, agent] = await this.#spends(this.spendKeys(subject, now));
    return { user: user!, chat: chat!, agent: agent! };
  }

  /** Every user, chat and agent with spend today (settled + reserved), most first (then user, chat, agent): SCAN over the day's keys. */
  async spendOfDay(now: number): Promise<Array<{ scope: BudgetScope; id: string; spentUsd: number }>> {
    const base = this.#base(now);
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await this.#redis.scan(cursor, 'MATCH', `${base.replace(/[*?[\]\\]/g, '\\$&')}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found.filter((key) => !key.startsWith(`${base}:notice:`)));
    } while (cursor !== '0');
    if (keys.length === 0) return [];
    const spends = await this.#spends(keys);
    return keys
      .map((key, index) => {
        const rest = key.slice(base.length + 1);
        const colon = rest.indexOf(':');
        return { scope: rest.slice(0, colon) as BudgetScope, id: rest.slice(colon + 1), spentUsd: spends[index]! };
      })
      .filter((entry) => BUDGET_SCOPES.includes(entry.scope))
      .sort((a, b) => b.spentUsd - a.spentUsd || BUDGET_SCOPES.indexOf(a.scope) - BUDGET_SCOPES.indexOf(b.scope) || a.id.localeCompare(b.id));
  }

  /** Today's spend of these agents in USD, in their order: one round trip for a few known keys, no scan. */
  spendOfAgents(agentIds: readonly string[], now: number): Promise<number[]> {
    const base = this.#base(now);
    return agentIds.length === 0 ? Promise.resolve([]) : this.#spends(agentIds.map((id) => `${base}:agent:${id}`));
  }

  /** Spend (settled + reserved) in USD of budget keys. */
  async #spends(keys: string[]): Promise<number[]> {
    const pipeline = this.#redis.pipeline();
    for (const key of keys) pipeline.hmget(key, 'spent', 'reserved');
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, values]) => {
      if (error) throw error;
      const [spent, reserved] = values as Array<string | null>;
      return Math.max(0, Number(spent ?? 0) + Number(reserved ?? 0)) / NANOS_PER_USD;
    });
  }
}
