export { BudgetLedger, type BudgetSubject, type Reservation, type ReserveOutcome } from './budget-ledger.js';
export { BudgetSettings } from './budget-settings.js';
export { BudgetExceededError, budgetNotice } from './budget-exceeded-error.js';
export { BudgetedChatModel } from './budgeted-chat-model.js';
export { TurnBudgets, subjectOf, type TurnBudgetsOptions } from './turn-budgets.js';
export { BudgetLimitsSchema, mergeLimits, BUDGET_SCOPES, LIMIT_FIELDS, type BudgetLimits, type BudgetScope } from './budget-limits.js';
export { expectedCostUsd } from './expected-cost.js';
export { utcDay, nextUtcMidnight } from './budget-day.js';
export { BudgetsOverview, type BudgetLimitLevels, type BudgetSpend, type BudgetsOverviewOptions } from './budgets-overview.js';
