import type { BudgetLedger } from './budget-ledger.js';
import { mergeLimits, type BudgetLimits, type BudgetScope } from './budget-limits.js';
import { utcDay } from './budget-day.js';
import type { BudgetSettings } from './budget-settings.js';

export interface BudgetSpend {
  scope: BudgetScope;
  /** `<channel>:<userId>`, `<channel>:<accountId>:<chatId>` or the agent id. */
  id: string;
  spentUsd: number;
}

export interface BudgetLimitLevels {
  /** BUDGET_*_DAILY_USD */
  environment: BudgetLimits;
  /** Set in the console (Redis), replacing the variables. */
  console: BudgetLimits;
  /** What applies where the config file sets nothing. */
  effective: BudgetLimits;
  /** Agents whose config-file `budgets` override the defaults for their chats. */
  agents: Array<{ id: string; limits: BudgetLimits }>;
}

export interface BudgetsOverviewOptions {
  ledger: BudgetLedger;
  settings: BudgetSettings;
  defaults: BudgetLimits;
  agents: Array<{ id: string; budgets: BudgetLimits }>;
  clock?: () => number;
}

/** What the operator console shows and edits about budgets. */
export class BudgetsOverview {
  constructor(private readonly options: BudgetsOverviewOptions) {}

  async limits(): Promise<BudgetLimitLevels> {
    const console = await this.options.settings.overrides();
    return {
      environment: this.options.defaults,
      console,
      effective: mergeLimits(this.options.defaults, console),
      agents: this.options.agents.filter((agent) => Object.keys(agent.budgets).length > 0).map((agent) => ({ id: agent.id, limits: agent.budgets })),
    };
  }

  /** Sets the console's defaults; `null` clears one (the variable applies again). */
  update(changes: { [Field in keyof BudgetLimits]?: number | null }): Promise<void> {
    return this.options.settings.update(changes);
  }

  /** Each configured agent's spend today with the agent limit that applies to it (the console's home page). */
  async agentsToday(): Promise<{ day: string; agents: Array<{ id: string; spentUsd: number; limitUsd: number | undefined }> }> {
    const now = (this.options.clock ?? Date.now)();
    const [console, spent] = await Promise.all([this.options.settings.overrides(), this.options.ledger.spendOfAgents(this.options.agents.map((agent) => agent.id), now)]);
    return {
      day: utcDay(now),
      agents: this.options.agents.map((agent, index) => ({
        id: agent.id,
        spentUsd: spent[index] ?? 0,
        limitUsd: mergeLimits(this.options.defaults, console, agent.budgets).agentDailyUsd,
      })),
    };
  }

  async spendToday(): Promise<{ day: string; spend: BudgetSpend[] }> {
    const now = (this.options.clock ?? Date.now)();
    return { day: utcDay(now), spend: await this.options.ledger.spendOfDay(now) };
  }
}
