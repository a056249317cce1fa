import type { FastifyReply } from 'fastify';
import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { ConsoleContext } from '../console-section.js';
import { count, duration, timeOf } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';
import { sessionPath } from '../sessions/sessions-page.js';
import type { NamedApproval } from './pending-approvals.js';

export const APPROVALS_PATH = `${ADMIN_PREFIX}/approvals`;
export const DENY_PATH = `${APPROVALS_PATH}/deny`;

export interface ApprovalsPageInput {
  approvals: NamedApproval[];
  /** Requests in the pending index (the list shows the oldest `approvals.length`). */
  total: number;
  now: Date;
  outcome?: Html;
}

/** `3 min 20 s`: how long the request has waited. */
export function ageOf(createdAtMs: number, now: Date): string {
  return duration(Math.max(0, now.getTime() - createdAtMs));
}

function requester(approval: NamedApproval): Html {
  const id = approval.record.requesterId;
  return approval.requesterName ? html`${approval.requesterName}<br><code>${id}</code>` : html`<code>${id}</code>`;
}

export function approvalsPage(context: ConsoleContext, reply: FastifyReply, input: ApprovalsPageInput): Html {
  const intro = html`<p class="lead">Tool calls waiting for the person who started the turn to press Allow or Deny in the chat. The turn is parked meanwhile (no worker slot). Deny here works like the person’s Deny: the prompt in the chat shows it and the turn goes on without the call.</p>`;
  if (input.approvals.length === 0) return html`!${input.outcome ?? EMPTY_HTML}!${intro}<p>No approval requests are waiting.</p>`;
  const rows = input.approvals.map((approval) => {
    const { record } = approval;
    const label = approval.chatLabel ?? (approval.conversation ? `${approval.conversation.channel} chat ${approval.conversation.chatId}` : record.sessionKey);
    const expired = record.deadlineMs <= input.now.getTime();
    return html`<tr>
<th scope="row"><code>${record.toolName}</code></th>
<td><code>${record.argumentsPreview}</code></td>
<td>!${requester(approval)}</td>
<td><a href="${sessionPath(record.sessionKey)}">${label}</a></td>
<td>${ageOf(record.createdAtMs, input.now)}<br>!${timeOf(new Date(record.createdAtMs))}</td>
<td>!${expired ? html`<span class="badge failed">expired</span> denied when the turn resumes` : html`!${timeOf(new Date(record.deadlineMs))}`}</td>
!${context.readOnly ? EMPTY_HTML : html`<td>!${context.actionForm(reply, { action: DENY_PATH, fields: { id: record.id }, label: 'Deny', detail: `${record.toolName} for ${approval.requesterName ?? record.requesterId}` })}</td>`}
</tr>`;
  });
  return html`!${input.outcome ?? EMPTY_HTML}!${intro}<p role="status">${count(input.total)} request${input.total === 1 ? '' : 's'} waiting${
    input.total > input.approvals.length ? `; the oldest ${count(input.approvals.length)} are shown` : ''
  }.</p><div class="table-scroll"><table>
<caption>Pending approval requests, oldest first</caption>
<thead><tr><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Asked by</th><th scope="col">Chat</th><th scope="col">Waiting</th><th scope="col">Deadline</th>!${
    context.readOnly ? EMPTY_HTML : html`<th scope="col">Action</th>`
  }</tr></thead>
<tbody>!${rows}</tbody>
</table></div>`;
}
