import type { InboundMessage } from '../core/inbound-message.js';
import { wrapEachModel, type ChatModel } from '../llm/chat-model.js';
import { priceOf, type ModelPrice } from '../llm/pricing.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { BudgetLedger, BudgetSubject } from './budget-ledger.js';
import { mergeLimits, type BudgetLimits } from './budget-limits.js';
import type { BudgetSettings } from './budget-settings.js';
import { BudgetedChatModel } from './budgeted-chat-model.js';

export interface TurnBudgetsOptions {
  ledger: BudgetLedger;
  /** BUDGET_*_DAILY_USD */
  defaults: BudgetLimits;
  /** The console's edits of the defaults. */
  settings?: BudgetSettings;
  /** The config file's levels for a message: its agent's, then its chat's (channel < account < group). */
  levelsFor: (message: InboundMessage) => BudgetLimits[];
  /** LLM_PRICES */
  prices: Record<string, ModelPrice>;
  clock?: () => number;
  metrics?: Metrics;
  logger: Logger;
}

export function subjectOf(message: InboundMessage): BudgetSubject {
  const { conversation } = message;
  return {
    user: `${conversation.channel}:${message.sender.id}`,
    chat: `${conversation.channel}:${conversation.accountId}:${conversation.chatId}`,
    agent: message.agentId,
  };
}

/** Builds, for each turn, the model that charges its calls to the turn's user, chat and agent. */
export class TurnBudgets {
  constructor(private readonly options: TurnBudgetsOptions) {}

  /** The limits that apply to a message: defaults < console < agent < account/group levels, field by field. */
  async limitsFor(message: InboundMessage): Promise<BudgetLimits> {
    const console = (await this.options.settings?.overrides()) ?? {};
    return mergeLimits(this.options.defaults, console, ...this.options.levelsFor(message));
  }

  /**
   * A cost already incurred outside a ChatModel (a voice note's transcription) on the message's user, chat and
   * agent budgets: settled as it is, with nothing reserved (it cannot be refused any more; the turn's next model
   * call is, when the budget is used up). A failure is logged: the turn stands.
   */
  async charge(message: InboundMessage, usd: number): Promise<void> {
    const { ledger, metrics, logger } = this.options;
    const now = (this.options.clock ?? Date.now)();
    const labels = { agent: message.agentId, channel: message.conversation.channel };
    try {
      await ledger.settle({ keys: ledger.spendKeys(subjectOf(message), now), nanos: 0 }, usd, now);
      metrics?.llmSpendUsd.inc(labels, usd);
    } catch (error) {
      logger.warn({ err: error, ...labels }, 'a transcription could not be charged against the budget');
    }
  }

  /**
   * The model charging its calls to the message's budgets. Each concrete model gets its own wrapper (a failover
   * chain's fallbacks too): the reservation is made at the price of the model actually called.
   */
  async guard(model: ChatModel, message: InboundMessage): Promise<ChatModel> {
    const { ledger, metrics, logger } = this.options;
    const labels = { agent: message.agentId, channel: message.conversation.channel };
    const limits = await this.limitsFor(message);
    return wrapEachModel(
      model,
      (concrete) =>
        new BudgetedChatModel(concrete, {
          ledger,
          subject: subjectOf(message),
          limits,
          price: priceOf(concrete.model, this.options.prices),
          clock: this.options.clock ?? Date.now,
          onSpend: (usd) => metrics?.llmSpendUsd.inc(labels, usd),
          onRefused: (error) => metrics?.budgetRefusals.inc({ ...labels, scope: error.scope }),
          onSettleError: (error) => logger.warn({ err: error, ...labels }, 'a model call could not be settled against the budget'),
        }),
    );
  }
}
