import { outputCapOf, type ChatModel, type ChatRequest, type ModelStreamEvent } from '../llm/chat-model.js';
import { costOf, type ModelPrice } from '../llm/pricing.js';
import { setTimeout as delay } from 'node:timers/promises';
import type { BudgetLedger, BudgetSubject, ReserveOutcome } from './budget-ledger.js';
import type { BudgetLimits } from './budget-limits.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { expectedCostUsd } from './expected-cost.js';

export interface BudgetedCall {
  ledger: BudgetLedger;
  subject: BudgetSubject;
  limits: BudgetLimits;
  /** The model's price; undefined: tokens are counted elsewhere, USD limits do not apply. */
  price: ModelPrice | undefined;
  clock: () => number;
  /** The real cost of each finished call (metrics). */
  onSpend?: (usd: number) => void;
  onRefused?: (error: BudgetExceededError) => void;
  onSettleError?: (error: unknown) => void;
  /** How long a call waits for calls in flight to settle when only their reservations hold the limit. */
  busyWaitMs?: number;
}

const BUSY_POLL_MS = 200;
const DEFAULT_BUSY_WAIT_MS = 60_000;

/**
 * A ChatModel that asks the budget before every call: the expected cost is reserved first (a refusal throws
 * BudgetExceededError without calling the model) and replaced by the real cost when the call ends. Wrapping
 * the model (rather than a hook in agent/model-call.ts) keeps the agent loop unaware of budgets, and charges any
 * other caller handed the same model (the summaries and memory flushes of compaction are handed it too).
 */
export class BudgetedChatModel implements ChatModel {
  readonly provider: ChatModel['provider'];
  readonly model: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;

  constructor(
    private readonly inner: ChatModel,
    private readonly call: BudgetedCall,
  ) {
    this.provider = inner.provider;
    this.model = inner.model;
    this.contextWindow = inner.contextWindow;
    this.maxOutputTokens = inner.maxOutputTokens;
  }

  async *stream(request: ChatRequest): AsyncIterable<ModelStreamEvent> {
    const { price, ledger, clock } = this.call;
    if (!price) {
      yield* this.inner.stream(request);
      return;
    }
    // With no limit to enforce nothing is reserved (one round trip saved): the cost is only counted afterwards.
    const limited = Object.values(this.call.limits).some((limit) => limit !== undefined);
    // the reservation holds the largest answer the request can get: the output cap it is sent with
    const outcome = limited
      ? await this.#reserve(expectedCostUsd(price, { ...request, maxTokens: outputCapOf(this.maxOutputTokens, request) }), request.signal)
      : ({ kind: 'reserved', reservation: { keys: ledger.spendKeys(this.call.subject, clock()), nanos: 0 } } as const);
    if (outcome.kind !== 'reserved') {
      const error = new BudgetExceededError(outcome.scope, outcome.limitUsd, outcome.resetsAt, outcome.notify);
      this.call.onRefused?.(error);
      throw error;
    }
    let actualUsd = 0;
    try {
      for await (const event of this.inner.stream(request)) {
        if (event.type === 'finish') {
          actualUsd = costOf(this.model, event.usage, { [this.model]: price });
          this.call.onSpend?.(actualUsd);
        }
        yield event;
      }
    } finally {
      // A failed call settles at 0: what the provider charged for it, if anything, is not known.
      if (limited) await ledger.settle(outcome.reservation, actualUsd, clock()).catch((error: unknown) => this.call.onSettleError?.(error));
      // nothing reserved, nothing waits on it: counted in the ledger's next batch
      else ledger.record(outcome.reservation.keys, actualUsd, clock());
    }
  }

  /** Reserves; while only calls in flight hold the limit, waits for them to settle (bounded), then decides for good. */
  async #reserve(expectedUsd: number, signal: AbortSignal | undefined): Promise<Exclude<ReserveOutcome, { kind: 'busy' }>> {
    const { ledger, subject, limits, clock } = this.call;
    const deadline = Date.now() + (this.call.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS);
    for (;;) {
      const final = Date.now() >= deadline;
      const outcome = await ledger.reserve(subject, limits, expectedUsd, clock(), final);
      if (outcome.kind !== 'busy') return outcome;
      await delay(BUSY_POLL_MS, undefined, signal ? { signal } : {});
    }
  }
}
