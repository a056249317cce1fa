import { Type, type Static } from '@sinclair/typebox';

const Usd = Type.Number({ minimum: 0 });

/** Daily USD limits (UTC days); an unset field sets no limit at that level. Config file: `budgets:`. */
export const BudgetLimitsSchema = Type.Object(
  {
    /** What one user may spend a day (per agent: a user talking to two agents has two budgets). */
    userDailyUsd: Type.Optional(Usd),
    /** What one chat (a DM or a group) may spend a day. */
    chatDailyUsd: Type.Optional(Usd),
    /** What one agent may spend a day over all its chats. */
    agentDailyUsd: Type.Optional(Usd),
  },
  { additionalProperties: false },
);

export type BudgetLimits = Static<typeof BudgetLimitsSchema>;

export const BUDGET_SCOPES = ['user', 'chat', 'agent'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

export const LIMIT_FIELDS = { user: 'userDailyUsd', chat: 'chatDailyUsd', agent: 'agentDailyUsd' } as const satisfies Record<BudgetScope, keyof BudgetLimits>;

/** Field by field, the last level that sets a limit wins (least specific first). */
export function mergeLimits(...levels: Array<BudgetLimits | undefined>): BudgetLimits {
  const merged: BudgetLimits = {};
  for (const level of levels) {
    if (!level) continue;
    for (const field of Object.values(LIMIT_FIELDS)) {
      const value = level[field];
      if (value !== undefined) merged[field] = value;
    }
  }
  return merged;
}
