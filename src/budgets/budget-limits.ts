import { Type, type Static } from '@sinclair/typebox';

/** Daily USD limits (UTC days); an unset field sets no limit at that level. Config file: `budgets:`. */
export const BudgetLimitsSchema = Type.Object(
  {
    userDailyUsd: Type.Optional(Type.Number({ minimum: 0, description: 'What one user may spend a day, in USD (UTC days).' })),
    chatDailyUsd: Type.Optional(Type.Number({ minimum: 0, description: 'What one chat (a DM or a group) may spend a day, in USD.' })),
    agentDailyUsd: Type.Optional(Type.Number({ minimum: 0, description: 'What one agent may spend a day over all its chats, in USD.' })),
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
