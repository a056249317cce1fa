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
  /** Spend of calls under no limit, not yet written: nano-USD per key, by day. */
  #unsaved = new Map<string, { spends: Map<string, number>; ttlSeconds: number }>();
  /** Keys this process gave their day's expiry already (one EXPIRE a key a day, not one a call). */
  #expiring = new Set<string>();
  #expiringDay = '';
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: BudgetStore,
    private readonly options: { batchMs?: number; onError?: (error: unknown) => void } = {},
  ) {}

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

  /**
   * The cost of a call that reserved nothing (no limit applied to it): counted for the console and for limits set
   * later in the day, but written in batches (every `batchMs`, 250 ms unless told) rather than one round trip a
   * call, since nothing waits on it. Reads of this ledger write what is unsaved first.
   */
  record(keys: [string, string, string], actualUsd: number, now: number): void {
    const nanos = toNanos(actualUsd);
    if (nanos <= 0) return;
    const day = utcDay(now);
    let batch = this.#unsaved.get(day);
    if (!batch) this.#unsaved.set(day, (batch = { spends: new Map(), ttlSeconds: dayKeyTtlSeconds(now) }));
    for (const key of keys) batch.spends.set(key, (batch.spends.get(key) ?? 0) + nanos);
    this.#timer ??= setTimeout(() => void this.flush(), this.options.batchMs ?? 250).unref();
  }

  /** Writes the batched spend now (a failed write keeps it for the next flush). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#unsaved.size === 0) return this.#flushing;
    const unsaved = this.#unsaved;
    this.#unsaved = new Map();
    const byDay = new Map<string, { spends: Map<string, number>; expire: string[]; ttlSeconds: number }>();
    for (const [day, { spends, ttlSeconds }] of unsaved) {
      if (day !== this.#expiringDay) {
        this.#expiring.clear();
        this.#expiringDay = day;
      }
      const expire = [...spends.keys()].filter((key) => !this.#expiring.has(key));
      byDay.set(day, { spends, expire, ttlSeconds });
    }
    const write = this.#flushing.then(() => this.store.addSpends(byDay));
    this.#flushing = write.then(
      () => {
        for (const { expire } of byDay.values()) for (const key of expire) this.#expiring.add(key);
        if (this.#expiring.size > 100_000) this.#expiring.clear();
      },
      (error: unknown) => {
        // kept, added to whatever came since, for the next flush
        for (const [day, { spends, ttlSeconds }] of unsaved) {
          for (const [key, nanos] of spends) {
            let batch = this.#unsaved.get(day);
            if (!batch) this.#unsaved.set(day, (batch = { spends: new Map(), ttlSeconds }));
            batch.spends.set(key, (batch.spends.get(key) ?? 0) + nanos);
          }
        }
        this.#timer ??= setTimeout(() => void this.flush(), 1_000).unref();
        this.options.onError?.(error);
      },
    );
    return this.#flushing;
  }

  /** Today's spend of each scope of a subject in USD, counting what calls in flight have reserved. */
  async spentToday(subject: BudgetSubject, now: number): Promise<Record<BudgetScope, number>> {
    await this.flush();
    const [user, chat, agent] = (await this.store.spends(this.spendKeys(subject, now))).map(toUsd);
    return { user: user!, chat: chat!, agent: agent! };
  }

  /** Every user, chat and agent with spend today (settled + reserved), most first (then user, chat, agent). */
  async spendOfDay(now: number): Promise<Array<{ scope: BudgetScope; id: string; spentUsd: number }>> {
    await this.flush();
    return (await this.store.spendOfDay(utcDay(now)))
      .filter((entry): entry is { scope: BudgetScope; id: string; nanos: number } => BUDGET_SCOPES.includes(entry.scope as BudgetScope))
      .map(({ scope, id, nanos }) => ({ scope, id, spentUsd: toUsd(nanos) }))
      .sort((a, b) => b.spentUsd - a.spentUsd || BUDGET_SCOPES.indexOf(a.scope) - BUDGET_SCOPES.indexOf(b.scope) || a.id.localeCompare(b.id));
  }

  /** Today's spend of these agents in USD, in their order: one round trip for a few known keys, no scan. */
  async spendOfAgents(agentIds: readonly string[], now: number): Promise<number[]> {
    await this.flush();
    const keys = agentIds.map((agent) => this.store.spendKeys(utcDay(now), { user: '', chat: '', agent })[2]);
    return (await this.store.spends(keys)).map(toUsd);
  }
}

function toUsd(nanos: number): number {
  return nanos / NANOS_PER_USD;
}
