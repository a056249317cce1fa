import type { FastifyReply } from 'fastify';
import { LIMIT_FIELDS, type BudgetLimitLevels, type BudgetLimits, type BudgetScope, type BudgetSpend } from '../../../budgets/index.js';
import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { ConsoleContext } from '../console-section.js';
import { usd } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';

export const BUDGETS_PATH = `${ADMIN_PREFIX}/budgets`;

const SCOPE_TITLES: Record<BudgetScope, string> = { user: 'Per user', chat: 'Per chat', agent: 'Per agent' };
const SCOPES = Object.keys(LIMIT_FIELDS) as BudgetScope[];

export interface BudgetsPageInput {
  limits: BudgetLimitLevels;
  day: string;
  spend: BudgetSpend[];
  /** What the last action did, shown above the tables. */
  outcome?: Html;
}

const limitText = (limits: BudgetLimits, scope: BudgetScope): string => {
  const value = limits[LIMIT_FIELDS[scope]];
  return value === undefined ? 'no limit' : usd(value);
};

function limitsTable(input: BudgetsPageInput): Html {
  const { limits } = input;
  return html`<div class="table-scroll"><table>
<caption>Daily limits in US dollars (UTC days)</caption>
<thead><tr><th scope="col">Budget</th><th scope="col" class="number">Environment (BUDGET_*)</th><th scope="col" class="number">Set here</th><th scope="col" class="number">Applies</th></tr></thead>
<tbody>!${SCOPES.map(
    (scope) => html`<tr><th scope="row">${SCOPE_TITLES[scope]}</th><td class="number">${limitText(limits.environment, scope)}</td><td class="number">${
      limits.console[LIMIT_FIELDS[scope]] === undefined ? '—' : limitText(limits.console, scope)
    }</td><td class="number">${limitText(limits.effective, scope)}</td></tr>`,
  )}</tbody>
</table></div>!${
    limits.agents.length === 0
      ? EMPTY_HTML
      : html`<p>The config file overrides these for the chats of some agents: !${limits.agents.map(
          (agent) => html`<code>${agent.id}</code> (${SCOPES.filter((scope) => agent.limits[LIMIT_FIELDS[scope]] !== undefined)
            .map((scope) => `${scope} ${limitText(agent.limits, scope)}`)
            .join(', ')}) `,
        )}; accounts and groups may too.</p>`
  }`;
}

function editForm(context: ConsoleContext, reply: FastifyReply, limits: BudgetLimitLevels): Html {
  if (context.readOnly) return EMPTY_HTML;
  const field = (scope: BudgetScope) => {
    const name = LIMIT_FIELDS[scope];
    const value = limits.console[name];
    return html`<label>${SCOPE_TITLES[scope]} (USD a day)<input type="number" name="${name}" min="0" step="any" inputmode="decimal" value="${value === undefined ? '' : String(value)}"></label>`;
  };
  return html`<h2>Change the limits</h2>
<p>A value set here replaces its environment variable for every process; leave it empty to use the variable again. The config file's agents, accounts and groups still override it.</p>
<form class="range" method="post" action="${BUDGETS_PATH}">!${context.csrfField(reply)}!${SCOPES.map(field)}<button type="submit">Save limits</button></form>`;
}

function spendTables(input: BudgetsPageInput): Html {
  return html`<h2>Spent today (${input.day})</h2><p>Settled cost plus what calls still running have reserved.</p>!${SCOPES.map((scope) => {
    const rows = input.spend.filter((entry) => entry.scope === scope);
    const limit = limitText(input.limits.effective, scope);
    if (rows.length === 0) return html`<h3>${SCOPE_TITLES[scope]}</h3><p>Nothing spent yet today.</p>`;
    return html`<div class="table-scroll"><table>
<caption>${SCOPE_TITLES[scope]}: spent today, most first (default limit: ${limit})</caption>
<thead><tr><th scope="col">${scope === 'user' ? 'User' : scope === 'chat' ? 'Chat' : 'Agent'}</th><th scope="col" class="number">Spent</th></tr></thead>
<tbody>!${rows.map((row) => html`<tr><th scope="row"><code>${row.id}</code></th><td class="number">${usd(row.spentUsd)}</td></tr>`)}</tbody>
</table></div>`;
  })}`;
}

export function budgetsPage(context: ConsoleContext, reply: FastifyReply, input: BudgetsPageInput): Html {
  return html`!${input.outcome ?? EMPTY_HTML}<p class="lead">Each model call first reserves its expected cost against today's budgets of its user, chat and agent; a chat over a limit gets one notice a day and no answers until midnight UTC.</p>!${limitsTable(
    input,
  )}!${editForm(context, reply, input.limits)}!${spendTables(input)}`;
}
