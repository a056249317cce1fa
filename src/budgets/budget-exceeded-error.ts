import { BotError } from '../core/errors.js';
import type { BudgetScope } from './budget-limits.js';

/** A daily budget is used up: the model was not called. Not retryable before `resetsAt`. */
export class BudgetExceededError extends BotError {
  constructor(
    readonly scope: BudgetScope,
    readonly limitUsd: number,
    readonly resetsAt: Date,
    /** This refusal is the chat's first today: it gets the notice. */
    readonly notify: boolean,
  ) {
    super('budget-exceeded', `the ${scope}'s daily budget of $${limitUsd} is used up until ${resetsAt.toISOString()}`);
    this.name = 'BudgetExceededError';
  }
}

/** The short notice a chat gets once a day when a limit is reached. */
export function budgetNotice(error: BudgetExceededError): string {
  const whose = { user: 'your', chat: "this chat's", agent: "this assistant's" }[error.scope];
  const at = error.resetsAt.toISOString().slice(0, 16).replace('T', ' ');
  return `Sorry, ${whose} daily usage limit has been reached. It resets at midnight UTC (${at} UTC).`;
}
