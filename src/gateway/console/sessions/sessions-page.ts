import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { ConsoleSession } from '../../../store/index.js';
import { count, pathWithQuery, timeOf, usd } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';
import { chatLabel, personCell } from '../names.js';
import { MAX_SEARCH_LENGTH } from '../query-parameters.js';

export function sessionPath(key: string): string {
  return `${ADMIN_PREFIX}/sessions/${encodeURIComponent(key)}`;
}

/** What a session is called in lists and headings: the group's title or the DM user's name, else the chat's id. */
export function sessionLabel(session: Pick<ConsoleSession, 'title' | 'chatType' | 'chatId' | 'userName' | 'username'>): string {
  return chatLabel(session);
}

/** An exact filter the list is narrowed to (from a budget row's link), with how the page names it. */
export interface SessionsFilterView {
  /** The query parameters that set it, kept in the pager's links. */
  parameters: Record<string, string>;
  description: string;
}

export interface SessionsPageInput {
  search: string;
  filter: SessionsFilterView | undefined;
  sessions: ConsoleSession[];
  limit: number;
  /** Set when this is not the first page. */
  cursor: string | undefined;
  nextCursor: string | undefined;
}

export function sessionsPage(input: SessionsPageInput): Html {
  const { search, filter } = input;
  const kept = filter ? html`!${Object.entries(filter.parameters).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}` : EMPTY_HTML;
  const form = html`<form class="search" method="get" action="${ADMIN_PREFIX}/sessions" role="search">!${kept}
<label for="session-search">Chat, user (id, name, @username) or text
<input id="session-search" type="search" name="q" value="${search}" maxlength="${MAX_SEARCH_LENGTH}" placeholder="e.g. 12345, Team Room, Ada, @ada, invoice"></label>
<button type="submit">Search</button>!${search || filter ? html` <a class="button secondary" href="${ADMIN_PREFIX}/sessions">Clear</a>` : EMPTY_HTML}
</form>`;
  const narrowed = filter ? html`<p class="notice">Showing ${filter.description}.</p>` : EMPTY_HTML;
  const summary = search
    ? html`<p role="status">${input.sessions.length === 0 ? 'No' : count(input.sessions.length)}${input.nextCursor ? '+' : ''} session${input.sessions.length === 1 ? '' : 's'} matching “${search}”.</p>`
    : EMPTY_HTML;
  if (input.sessions.length === 0) {
    const empty = search ? EMPTY_HTML : filter ? html`<p>No sessions.</p>` : html`<p>No sessions yet: they appear after the first answered message.</p>`;
    return html`!${form}!${narrowed}!${summary}!${empty}`;
  }
  const rows = input.sessions.map(
    (session) => html`<tr>
<th scope="row"><a href="${sessionPath(session.key)}">${sessionLabel(session)}</a><br><code>${session.key}</code></th>
<td>${session.channel}</td>
<td>${session.agentId}</td>
<td>!${personCell({ userId: session.userId, name: session.userName, username: session.username })}</td>
<td>!${timeOf(session.lastActivityAt)}</td>
<td class="number">${count(session.turns)}</td>
<td class="number">${count(session.inputTokens)} / ${count(session.outputTokens)}</td>
<td class="number">${usd(session.costUsd)}</td>
</tr>`,
  );
  const query = { ...filter?.parameters, q: search, limit: input.limit === 50 ? undefined : input.limit };
  const pager = [
    input.cursor ? html`<a href="${pathWithQuery(`${ADMIN_PREFIX}/sessions`, query)}">First page</a>` : EMPTY_HTML,
    input.nextCursor ? html`<a rel="next" href="${pathWithQuery(`${ADMIN_PREFIX}/sessions`, { ...query, cursor: input.nextCursor })}">Next page</a>` : EMPTY_HTML,
  ];
  return html`!${form}!${narrowed}!${summary}<div class="table-scroll"><table>
<caption>Sessions, most recent activity first</caption>
<thead><tr><th scope="col">Session</th><th scope="col">Channel</th><th scope="col">Agent</th><th scope="col">User</th><th scope="col">Last activity</th><th scope="col" class="number">Turns</th><th scope="col" class="number">Tokens in / out</th><th scope="col" class="number">Cost</th></tr></thead>
<tbody>!${rows}</tbody>
</table></div>
<nav class="pager" aria-label="Pages of sessions">!${pager}</nav>`;
}
