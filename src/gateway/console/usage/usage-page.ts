import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { UsageRow } from '../../../usage/index.js';
import { count, usd } from '../format.js';
import { html, type Html } from '../html.js';
import { usageChart } from './usage-chart.js';
import type { DayRange } from './usage-range.js';

interface Totals {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

function totalsBy(rows: UsageRow[], keyOf: (row: UsageRow) => string): Array<[string, Totals]> {
  const totals = new Map<string, Totals>();
  for (const row of rows) {
    const entry = totals.get(keyOf(row)) ?? { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    entry.inputTokens += row.inputTokens;
    entry.outputTokens += row.outputTokens;
    entry.costUsd += row.costUsd;
    totals.set(keyOf(row), entry);
  }
  return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function totalsTable(caption: string, heading: string, entries: Array<[string, Totals]>): Html {
  return html`<div class="table-scroll"><table>
<caption>${caption}</caption>
<thead><tr><th scope="col">${heading}</th><th scope="col" class="number">Tokens in</th><th scope="col" class="number">Tokens out</th><th scope="col" class="number">Cost</th></tr></thead>
<tbody>!${entries.map(
    ([name, totals]) =>
      html`<tr><th scope="row">${name}</th><td class="number">${count(totals.inputTokens)}</td><td class="number">${count(totals.outputTokens)}</td><td class="number">${usd(totals.costUsd)}</td></tr>`,
  )}</tbody>
</table></div>`;
}

export function usagePage(range: DayRange, rows: UsageRow[]): Html {
  const form = html`<form class="range" method="get" action="${ADMIN_PREFIX}/usage">
<label for="usage-from">From (UTC day)<input id="usage-from" type="date" name="from" value="${range.from}" required></label>
<label for="usage-to">To (UTC day, included)<input id="usage-to" type="date" name="to" value="${range.to}" required></label>
<button type="submit">Show</button>
</form>`;
  if (rows.length === 0) return html`!${form}<p>No runs between ${range.from} and ${range.to}.</p>`;
  const [[, all] = ['', { inputTokens: 0, outputTokens: 0, costUsd: 0 }]] = totalsBy(rows, () => 'all');
  const detail = rows.map(
    (row) =>
      html`<tr><th scope="row">${row.day}</th><td>${row.agent}</td><td>${row.channel}</td><td class="number">${count(row.inputTokens)}</td><td class="number">${count(row.outputTokens)}</td><td class="number">${usd(row.costUsd)}</td></tr>`,
  );
  return html`!${form}
<p>${range.from} to ${range.to}: <strong>${usd(all.costUsd)}</strong>, ${count(all.inputTokens)} tokens in and ${count(all.outputTokens)} out.
<a href="${ADMIN_PREFIX}/api/usage?from=${range.from}&amp;to=${range.to}">As JSON</a></p>
<h2>Cost per day</h2>
!${usageChart(range, rows)}
!${totalsTable('Cost per day', 'Day', totalsBy(rows, (row) => row.day))}
<h2>Per agent and channel</h2>
!${totalsTable('Cost per agent', 'Agent', totalsBy(rows, (row) => row.agent))}
!${totalsTable('Cost per channel', 'Channel', totalsBy(rows, (row) => row.channel))}
<h2>Per day, agent and channel</h2>
<div class="table-scroll"><table>
<caption>Every day, agent and channel with runs</caption>
<thead><tr><th scope="col">Day</th><th scope="col">Agent</th><th scope="col">Channel</th><th scope="col" class="number">Tokens in</th><th scope="col" class="number">Tokens out</th><th scope="col" class="number">Cost</th></tr></thead>
<tbody>!${detail}</tbody>
</table></div>`;
}
