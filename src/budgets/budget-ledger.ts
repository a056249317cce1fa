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
  | { reserved: true; reservation: Reservation }
  | { reserved: false; scope: BudgetScope; limitUsd: number; notify: boolean; resetsAt: Date };

type ReserveResult = [number] | [number, number];

interface BudgetCommands {
  reserveBudget(user: string, chat: string, agent: string, notice: string, ...argv: Array<string | number>): Promise<ReserveResult>;
  settleBudget(user: string, chat: string, agent: string, ...argv: Array<string | number>): Promise<number[]>;
}

/**
 * Today's spend per user, chat and agent in Redis, shared by every process. Keys:
 *   {<prefix>:budget:<day>}:user:<channel>:<userId>            nano-USD spent + reserved (reserve-budget.lua)
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

  /** One round trip: reserves `expectedUsd` on all three budgets, or refuses when one of them is used up. */
  async reserve(subject: BudgetSubject, limits: BudgetLimits, expectedUsd: number, now: number): Promise<ReserveOutcome> {
    const keys = this.spendKeys(subject, now);
    const limitArgs = BUDGET_SCOPES.map((scope) => {
      const limit = limits[LIMIT_FIELDS[scope]];
      return limit === undefined ? -1 : toNanos(limit);
    });
    const nanos = toNanos(expectedUsd);
    const result = await this.#redis.reserveBudget(...keys, `${this.#base(now)}:notice:${subject.chat}`, ...limitArgs, nanos, dayKeyTtlSeconds(now));
    if (result[0] === 0) return { reserved: true, reservation: { keys, nanos } };
    const scope = BUDGET_SCOPES[result[0] - 1]!;
    return { reserved: false, scope, limitUsd: limits[LIMIT_FIELDS[scope]]!, notify: result[1] === 1, resetsAt: nextUtcMidnight(now) };
  }

  /** One round trip: the reservation becomes the real cost. */
  async settle(reservation: Reservation, actualUsd: number, now: number): Promise<void> {
    await this.#redis.settleBudget(...reservation.keys, toNanos(actualUsd) - reservation.nanos, dayKeyTtlSeconds(now));
  }

  /** Today's spend (settled and reserved) of each scope of a subject, in USD. */
  async spentToday(subject: BudgetSubject, now: number): Promise<Record<BudgetScope, number>> {
    const values = await this.#redis.mget(...this.spendKeys(subject, now));
    const usd = (value: string | null | undefined) => Math.max(0, Number(value ?? 0)) / NANOS_PER_USD;
    return { user: usd(values[0]), chat: usd(values[1]), agent: usd(values[2]) };
  }
}
