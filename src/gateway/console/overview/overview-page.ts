import type { ConsoleSection } from '../console-section.js';
import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { RecentFailure, RunCounts } from '../../../store/index.js';
import type { ChannelConnection, QueueState } from '../../service-status.js';
import { count, duration, sharePercent, shorten, timeOf, usd } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';
import { chatLabel } from '../names.js';
import { sessionPath } from '../sessions/sessions-page.js';
import type { OverviewData } from './overview-data.js';

const QUEUE_TITLES: Record<string, string> = { turns: 'Turns (session queue)', inbound: 'Compactions (inbound queue)', schedules: 'Scheduled firings' };

function card(id: string, title: string, body: Html): Html {
  return html`<section class="card" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>!${body}</section>`;
}

function unavailable(data: OverviewData, part: string, what: string): Html {
  return data.unavailable[part] === 'failed'
    ? html`<p class="notice problem" role="alert">${what}: could not be read just now (the log says why).</p>`
    : html`<p class="notice">${what}: not available in this process.</p>`;
}

function statusCounts(counts: RunCounts): Html {
  const failed = counts.failed > 0 ? html`<span class="badge failed">${count(counts.failed)} failed</span>` : html`0 failed`;
  return html`${count(counts.completed)} completed, !${failed}, ${count(counts.cancelled)} stopped, ${count(counts.budgetExceeded)} refused by a budget`;
}

function todayCard(data: OverviewData): Html {
  const runs = data.runs;
  const spend = data.budgets;
  const agents = spend?.agents ?? [];
  const agentRows = agents.map(
    (agent) => html`<tr><th scope="row"><code>${agent.id}</code></th><td class="number">${usd(agent.spentUsd)}</td><td class="number">${
      agent.limitUsd === undefined ? 'no limit' : usd(agent.limitUsd)
    }</td><td class="number">!${
      agent.limitUsd === undefined || agent.limitUsd <= 0
        ? html`–`
        : html`<span class="${agent.spentUsd >= agent.limitUsd ? 'badge failed' : 'badge'}">${sharePercent(agent.spentUsd, agent.limitUsd)}</span>`
    }</td></tr>`,
  );
  const defaults = spend?.defaults;
  const body = html`!${
    runs
      ? html`<p class="figure"><span class="value">${usd(runs.today.costUsd)}</span> settled over ${count(runs.today.turns)} turn${runs.today.turns === 1 ? '' : 's'}</p><p>!${statusCounts(runs.today)}.</p>`
      : unavailable(data, 'turns', 'Turns')
  }!${
    spend
      ? html`<div class="table-scroll"><table>
<caption>Spend today by agent against its daily limit (including calls still running)</caption>
<thead><tr><th scope="col">Agent</th><th scope="col" class="number">Spent</th><th scope="col" class="number">Limit</th><th scope="col" class="number">Used</th></tr></thead>
<tbody>!${agentRows}</tbody></table></div>
<p>Default limits per user: ${defaults?.userDailyUsd === undefined ? 'none' : usd(defaults.userDailyUsd)}, per chat: ${
          defaults?.chatDailyUsd === undefined ? 'none' : usd(defaults.chatDailyUsd)
        }. <a href="${ADMIN_PREFIX}/budgets">Budgets: who spent what today</a></p>`
      : unavailable(data, 'budgets', 'Budgets')
  }`;
  return card('today', `Today (${data.day})`, body);
}

function failureItem(failure: RecentFailure, now: Date): Html {
  return html`<li><a href="${sessionPath(failure.sessionKey)}">${chatLabel(failure)}</a> (${failure.channel}), ${duration(now.getTime() - failure.startedAt.getTime())} ago: <span class="mono">${shorten(failure.error ?? 'failed', 160)}</span></li>`;
}

function hourCard(data: OverviewData): Html {
  const runs = data.runs;
  if (!runs) return card('last-hour', 'Last hour', unavailable(data, 'turns', 'Turns'));
  const hour = runs.lastHour;
  return card(
    'last-hour',
    'Last hour',
    html`<p class="figure"><span class="value">${count(hour.turns)}</span> turn${hour.turns === 1 ? '' : 's'}</p><p>!${statusCounts(hour)}.</p>!${
      runs.failures.length === 0
        ? EMPTY_HTML
        : html`<h3>Latest failures</h3><ul class="plain">!${runs.failures.map((failure) => failureItem(failure, data.now))}</ul>`
    }<p><a href="${ADMIN_PREFIX}/sessions">All sessions</a> · <a href="${ADMIN_PREFIX}/usage">Cost by day</a></p>`,
  );
}

function queueRow(queue: QueueState): Html {
  const paused = queue.paused ? html` <span class="badge failed">paused</span>` : EMPTY_HTML;
  const retrying = queue.retrying === undefined ? html`–` : queue.retrying > 0 ? html`<span class="badge failed">${count(queue.retrying)}</span>` : html`0`;
  return html`<tr><th scope="row"><a href="${ADMIN_PREFIX}/queues/queue/${encodeURIComponent(queue.queue)}">${QUEUE_TITLES[queue.queue] ?? queue.queue}</a>!${paused}</th><td class="number">${count(queue.running)}</td><td class="number">${count(
    queue.waiting,
  )}</td><td class="number">${count(queue.delayed)}</td><td class="number">!${retrying}</td><td class="number">!${queue.failed > 0 ? html`<span class="badge failed">${count(queue.failed)}</span>` : html`0`}</td></tr>`;
}

function workCard(data: OverviewData): Html {
  const approvals =
    data.pendingApprovals === undefined
      ? EMPTY_HTML
      : html`<p>${count(data.pendingApprovals)} turn${data.pendingApprovals === 1 ? '' : 's'} parked on an approval request. <a href="${ADMIN_PREFIX}/approvals">Approvals</a></p>`;
  const queues = data.queues
    ? html`<div class="table-scroll"><table>
<caption>Turns (messages waiting per session, turns running, retrying and failed) and BullMQ jobs by state</caption>
<thead><tr><th scope="col">Queue</th><th scope="col" class="number">Running</th><th scope="col" class="number">Waiting</th><th scope="col" class="number">Delayed</th><th scope="col" class="number">Retrying</th><th scope="col" class="number">Failed</th></tr></thead>
<tbody>!${data.queues.map(queueRow)}</tbody></table></div>`
    : unavailable(data, 'queues', 'Queues');
  return card('work', 'Running and waiting', html`!${queues}!${approvals}<p><a href="${ADMIN_PREFIX}/queues/queue/turns">Turns: waiting, running, retrying and failed (retry or discard)</a> · <a href="${ADMIN_PREFIX}/queues">All queues</a> · <a href="${ADMIN_PREFIX}/schedules">Scheduled tasks</a></p>`);
}

function connectionCells(connection: ChannelConnection, now: Date): Html {
  const holder =
    connection.transport === 'webhook'
      ? html`every gateway (webhook)`
      : connection.holder
        ? html`<code>${connection.holder.holder}</code><br>lease renews within ${duration(connection.holder.expiresInMs)}`
        : html`<span class="badge failed">nobody</span> (a gateway takes it over within the lease time)`;
  const last = connection.lastUpdateAt ? html`!${timeOf(connection.lastUpdateAt)}<br>${duration(Math.max(0, now.getTime() - connection.lastUpdateAt.getTime()))} ago` : html`none recorded yet`;
  return html`<td>${connection.transport}</td><td>!${holder}</td><td>!${last}</td>`;
}

function channelsCard(data: OverviewData): Html {
  if (!data.connections) return card('channels', 'Channels', unavailable(data, 'channel connections', 'Channel connections'));
  if (data.connections.length === 0) return card('channels', 'Channels', html`<p>No channel is configured: set <code>TELEGRAM_BOT_TOKEN</code>, <code>SLACK_BOT_TOKEN</code> or <code>FEISHU_APP_ID</code>.</p>`);
  return card(
    'channels',
    'Channels',
    html`<div class="table-scroll"><table>
<caption>Each bot account’s connection and the last update it received</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Transport</th><th scope="col">Connection held by</th><th scope="col">Last update received</th></tr></thead>
<tbody>!${data.connections.map((connection) => html`<tr><th scope="row">${connection.channel} <code>${connection.accountId}</code></th>!${connectionCells(connection, data.now)}</tr>`)}</tbody>
</table></div>`,
  );
}

const MCP_STATE_BADGES: Record<string, string> = { connected: 'badge', connecting: 'badge', down: 'badge failed' };

function mcpCard(data: OverviewData): Html {
  if (!data.mcpServers) return data.unavailable['mcp servers'] ? card('mcp', 'MCP servers', unavailable(data, 'mcp servers', 'MCP servers')) : EMPTY_HTML;
  const rows = data.mcpServers.flatMap((report) =>
    report.servers.map(
      (server) =>
        html`<tr><th scope="row"><code>${server.server}</code></th><td><code>${report.worker}</code></td><td><span class="${MCP_STATE_BADGES[server.state] ?? 'badge'}">${server.state}</span></td><td class="mono">${shorten(server.error ?? '', 200)}</td></tr>`,
    ),
  );
  const body =
    rows.length === 0
      ? html`<p>No worker has reported its MCP servers yet.</p>`
      : html`<div class="table-scroll"><table>
<caption>Each worker’s MCP servers: connecting (first attempt since the worker started), connected or down (retrying)</caption>
<thead><tr><th scope="col">Server</th><th scope="col">Worker</th><th scope="col">State</th><th scope="col">Last error</th></tr></thead>
<tbody>!${rows}</tbody></table></div>`;
  return card('mcp', 'MCP servers', body);
}

/** The home page: what an operator looks at first, then where each section is. */
export function overviewPage(data: OverviewData, sections: readonly ConsoleSection[]): Html {
  return html`<p class="lead">As of !${timeOf(data.now)}; reload for the latest.</p><div class="cards">!${todayCard(data)}!${hourCard(data)}!${workCard(data)}!${channelsCard(data)}!${mcpCard(data)}</div>
<h2>Sections</h2>
<ul class="sections">!${sections.map(
    (section) => html`<li><h3><a href="${ADMIN_PREFIX}/${section.id}">${section.title}</a></h3><p>${section.description}</p></li>`,
  )}<li><h3><a href="${ADMIN_PREFIX}/queues">Queues</a></h3><p>Turns and messages waiting, running, retrying and failed; compactions and scheduled firings (bull-board).</p></li></ul>`;
}
