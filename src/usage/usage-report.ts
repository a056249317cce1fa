import type { InboundMessage } from '../core/inbound-message.js';
import type { StoreDatabase } from '../store/database.js';
import { usageTotals, type UsageOwner, type UsageTotals } from './usage-totals.js';
import { nextUtcMidnight } from '../budgets/budget-day.js';
import type { BudgetLedger } from '../budgets/budget-ledger.js';
import { LIMIT_FIELDS, type BudgetLimits, type BudgetScope } from '../budgets/budget-limits.js';
import { subjectOf } from '../budgets/turn-budgets.js';

export interface UsageReportOptions {
  db: StoreDatabase;
  ledger: BudgetLedger;
  limitsFor: (message: InboundMessage) => Promise<BudgetLimits>;
  clock?: () => number;
}

const number = new Intl.NumberFormat('en-US');

export function formatUsd(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

export function formatTotals(label: string, totals: UsageTotals): string {
  return `${label}: ${number.format(totals.inputTokens)} tokens in, ${number.format(totals.outputTokens)} out, ${formatUsd(totals.costUsd)} (${totals.turns} turn${totals.turns === 1 ? '' : 's'})`;
}

/** The owner of the numbers `/usage` shows: the user in a DM, the chat in a group. */
export function usageOwnerOf(message: InboundMessage): UsageOwner {
  const { conversation } = message;
  return conversation.chatType === 'dm'
    ? { kind: 'user', channel: conversation.channel, userId: message.sender.id }
    : { kind: 'chat', channel: conversation.channel, accountId: conversation.accountId, chatId: conversation.chatId };
}

/**
 * `/usage`: today's and this month's tokens and cost (UTC) from the stored runs, and what is left of the
 * daily budgets that apply (from the live counters in Redis, which also hold calls still running).
 */
export function createUsageReport(options: UsageReportOptions) {
  const clock = options.clock ?? Date.now;
  return async function usageReport(message: InboundMessage): Promise<string> {
    const now = clock();
    const day = new Date(Math.floor(now / 86_400_000) * 86_400_000);
    const month = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1));
    const owner = usageOwnerOf(message);
    const end = nextUtcMidnight(now);
    const [today, thisMonth, limits, spent] = await Promise.all([
      usageTotals(options.db, owner, day, end),
      usageTotals(options.db, owner, month, end),
      options.limitsFor(message),
      options.ledger.spentToday(subjectOf(message), now),
    ]);
    const scopes: BudgetScope[] = message.conversation.chatType === 'dm' ? ['user', 'chat', 'agent'] : ['chat', 'agent'];
    const names: Record<BudgetScope, string> = { user: 'you', chat: 'this chat', agent: 'the assistant' };
    const left = scopes
      .filter((scope) => limits[LIMIT_FIELDS[scope]] !== undefined)
      .map((scope) => {
        const limit = limits[LIMIT_FIELDS[scope]]!;
        return `${formatUsd(Math.max(0, limit - spent[scope]))} of ${formatUsd(limit)} for ${names[scope]}`;
      });
    return [
      `Usage ${owner.kind === 'user' ? 'of your direct messages' : 'of this chat'} (UTC):`,
      formatTotals('Today', today),
      formatTotals('This month', thisMonth),
      left.length > 0 ? `Daily budget left: ${left.join('; ')} (resets at midnight UTC)` : 'Daily budget: no limit',
    ].join('\n');
  };
}

export type UsageReport = ReturnType<typeof createUsageReport>;
