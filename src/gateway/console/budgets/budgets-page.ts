import type { FastifyReply } from 'fastify';
import { LIMIT_FIELDS, type BudgetLimitLevels, type BudgetLimits, type BudgetScope } from '../../../budgets/index.js';
import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { ConsoleContext } from '../console-section.js';
import { count, pathWithQuery, sharePercent, usd } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';
import { MAX_SEARCH_LENGTH } from '../query-parameters.js';
import type { NamedSpend, SpendPage, SpendQuery } from './budget-spend-page.js';

export const BUDGETS_PATH = `${ADMIN_PREFIX}/budgets`;

const SCOPE_TITLES: Record<BudgetScope, string> = { user: 'Per user', chat: 'Per chat', agent: 'Per agent' };
const SCOPES = Object.keys(LIMIT_FIELDS) as BudgetScope[];

/** Rows of spend on one page unless `limit` says otherwise. */
export const BUDGETS_PAGE_SIZE = 25;

export interface BudgetsPageInput {
  limits: BudgetLimitLevels;
  day: string;
  spend: SpendPage;
  query: SpendQuery;
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

const SCOPE_NAMES: Record<BudgetScope, string> = { user: 'User', chat: 'Chat', agent: 'Agent' };

function spendOf(input: BudgetsPageInput, row: NamedSpend): Html {
  const limit = input.limits.effective[LIMIT_FIELDS[row.scope]];
  if (limit === undefined || limit <= 0) return html`${usd(row.spentUsd)}`;
  const share = sharePercent(row.spentUsd, limit);
  return html`${usd(row.spentUsd)} <span class="${row.spentUsd >= limit ? 'badge failed' : 'badge'}">${share} of ${usd(limit)}</span>`;
}

function spendSearch(input: BudgetsPageInput): Html {
  const { query } = input;
  const option = (value: string, label: string) => html`<option value="${value}"!${(query.scope ?? '') === value ? html` selected` : EMPTY_HTML}>${label}</option>`;
  return html`<form class="search" method="get" action="${BUDGETS_PATH}" role="search">
<label for="budget-search">User, chat or agent (id, name, @username, title)
<input id="budget-search" type="search" name="q" value="${query.search}" maxlength="${MAX_SEARCH_LENGTH}" placeholder="e.g. Ada, @ada, Team Room, 12345"></label>
<label for="budget-scope">Budget
<select id="budget-scope" name="scope">!${option('', 'All')}!${option('user', 'Users')}!${option('chat', 'Chats')}!${option('agent', 'Agents')}</select></label>
<button type="submit">Search</button>!${query.search || query.scope ? html` <a class="button secondary" href="${BUDGETS_PATH}">Clear</a>` : EMPTY_HTML}
</form>`;
}

function spendTable(input: BudgetsPageInput): Html {
  const { spend, query } = input;
  const narrowed = query.search !== '' || query.scope !== undefined;
  const found = html`<p role="status">${spend.total === 0 ? 'No' : count(spend.total)} ${narrowed ? 'matching ' : ''}budget${spend.total === 1 ? '' : 's'} with spend today${
    spend.pageCount > 1 ? `, page ${spend.page} of ${spend.pageCount}` : ''
  }.</p>`;
  if (spend.rows.length === 0) return html`!${spendSearch(input)}!${found}!${narrowed ? EMPTY_HTML : html`<p>Nothing spent yet today.</p>`}`;
  const link = (page: number) => pathWithQuery(BUDGETS_PATH, { q: query.search, scope: query.scope, page: page === 1 ? undefined : page, limit: query.limit === BUDGETS_PAGE_SIZE ? undefined : query.limit });
  const pager = html`<nav class="pager" aria-label="Pages of today's spend">!${spend.page > 1 ? html`<a rel="prev" href="${link(spend.page - 1)}">Previous page</a>` : EMPTY_HTML}!${
    spend.page < spend.pageCount ? html`<a rel="next" href="${link(spend.page + 1)}">Next page</a>` : EMPTY_HTML
  }</nav>`;
  const rows = spend.rows.map(
    (row) => html`<tr>
<td>${SCOPE_NAMES[row.scope]}</td>
<th scope="row">!${row.name ? html`${row.name}<br>` : EMPTY_HTML}<code>${row.id}</code></th>
<td class="number">!${spendOf(input, row)}</td>
<td><a href="${row.sessionsPath}">Sessions<span class="visually-hidden"> of ${row.name ?? row.id}</span></a></td>
</tr>`,
  );
  return html`!${spendSearch(input)}!${found}<div class="table-scroll"><table>
<caption>Spent today, most first (against the default limits)</caption>
<thead><tr><th scope="col">Budget</th><th scope="col">Who</th><th scope="col" class="number">Spent</th><th scope="col">Sessions</th></tr></thead>
<tbody>!${rows}</tbody>
</table></div>!${pager}`;
}

export function budgetsPage(context: ConsoleContext, reply: FastifyReply, input: BudgetsPageInput): Html {
  return html`!${input.outcome ?? EMPTY_HTML}<p class="lead">Each model call first reserves its expected cost against today's budgets of its user, chat and agent; a chat over a limit gets one notice a day and no answers until midnight UTC.</p>!${limitsTable(
    input,
  )}!${editForm(context, reply, input.limits)}<h2>Spent today (${input.day})</h2><p>Settled cost plus what calls still running have reserved. The config file may give some agents, accounts and groups other limits than the defaults shown here.</p>!${spendTable(input)}`;
}
