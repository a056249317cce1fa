import type { BudgetStore } from '../redis/budget-store.js';
import { BUDGET_SCOPES, LIMIT_FIELDS, type BudgetLimits, type BudgetScope } from './budget-limits.js';
import { dayKeyTtlSeconds, nextUtcMidnight, utcDay } from './budget-day.js';

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

/**
 * Today's spend per user, chat and agent in Redis, shared by every process (src/redis/budget-store.ts: one hash per
 * scope of a UTC day, all of the day under one hash tag, expiring an hour after the day ends); amounts here in USD.
 */
export class BudgetLedger {
  constructor(private readonly store: BudgetStore) {}

  spendKeys(subject: BudgetSubject, now: number): [string, string, string] {
    return this.store.spendKeys(utcDay(now), subject);
  }

  /**
   * One round trip: reserves `expectedUsd` on all three budgets, or refuses when one of them is used up, or says
   * it is busy when only calls in flight hold it up (`final`: refuse then as well).
   */
  async reserve(subject: BudgetSubject, limits: BudgetLimits, expectedUsd: number, now: number, final = false): Promise<ReserveOutcome> {
    const limitNanos = BUDGET_SCOPES.map((scope) => {
      const limit = limits[LIMIT_FIELDS[scope]];
      return limit === undefined ? -1 : toNanos(limit);
    });
    const nanos = toNanos(expectedUsd);
    const result = await this.store.reserve(utcDay(now), subject, limitNanos, nanos, dayKeyTtlSeconds(now), final);
    if (result[0] === 0) return { kind: 'reserved', reservation: { keys: this.spendKeys(subject, now), nanos } };
    const scope = BUDGET_SCOPES[result[1] - 1]!;
    if (result[0] === 2) return { kind: 'busy', scope };
    return { kind: 'refused', scope, limitUsd: limits[LIMIT_FIELDS[scope]]!, notify: result[2] === 1, resetsAt: nextUtcMidnight(now) };
  }

  /** One round trip: the reservation becomes the real cost. */
  async settle(reservation: Reservation, actualUsd: number, now: number): Promise<void> {
    await this.store.settle(reservation.keys, reservation.nanos, toNanos(actualUsd), dayKeyTtlSeconds(now));
  }

  /** Today's spend of each scope of a subject in USD, counting what calls in flight have reserved. */
  async spentToday(subject: BudgetSubject, now: number): Promise<Record<BudgetScope, number>> {
    const [user, chat, agent] = (await this.store.spends(this.spendKeys(subject, now))).map(toUsd);
    return { user: user!, chat: chat!, agent: agent! };
  }

  /** Every user, chat and agent with spend today (settled + reserved), most first (then user, chat, agent). */
  async spendOfDay(now: number): Promise<Array<{ scope: BudgetScope; id: string; spentUsd: number }>> {
    return (await this.store.spendOfDay(utcDay(now)))
      .filter((entry): entry is { scope: BudgetScope; id: string; nanos: number } => BUDGET_SCOPES.includes(entry.scope as BudgetScope))
      .map(({ scope, id, nanos }) => ({ scope, id, spentUsd: toUsd(nanos) }))
      .sort((a, b) => b.spentUsd - a.spentUsd || BUDGET_SCOPES.indexOf(a.scope) - BUDGET_SCOPES.indexOf(b.scope) || a.id.localeCompare(b.id));
  }

  /** Today's spend of these agents in USD, in their order: one round trip for a few known keys, no scan. */
  async spendOfAgents(agentIds: readonly string[], now: number): Promise<number[]> {
    const keys = agentIds.map((agent) => this.store.spendKeys(utcDay(now), { user: '', chat: '', agent })[2]);
    return (await this.store.spends(keys)).map(toUsd);
  }
}

function toUsd(nanos: number): number {
  return nanos / NANOS_PER_USD;
}
