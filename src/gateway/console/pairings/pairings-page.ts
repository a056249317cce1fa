import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { FastifyReply } from 'fastify';
import type { DmPolicy } from '../../../config/app-config.js';
import type { PairingRequestRow } from '../../../store/index.js';
import type { ConsoleContext } from '../console-section.js';
import { timeOf } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';

export const APPROVE_PATH = `${ADMIN_PREFIX}/pairings/approve`;

export interface PairingsPageInput {
  pending: PairingRequestRow[];
  dmPolicy: DmPolicy;
  now: Date;
  /** What the last action did, shown above the list. */
  outcome?: Html;
}

export function userOf(request: Pick<PairingRequestRow, 'channel' | 'userId' | 'userName'>): string {
  return `${request.channel}:${request.userId}${request.userName ? ` (${request.userName})` : ''}`;
}

export function pairingsPage(context: ConsoleContext, reply: FastifyReply, input: PairingsPageInput): Html {
  const policy =
    input.dmPolicy === 'pairing'
      ? EMPTY_HTML
      : html`<p class="notice">DM_POLICY is <code>${input.dmPolicy}</code>, not <code>pairing</code>: strangers get no codes now. Requests made earlier can still be approved.</p>`;
  const intro = html`<p class="lead">A stranger who writes to the bot gets a one-time code; approving it lets that user talk to the bot from then on. Codes expire after 15 minutes.</p>`;
  const list =
    input.pending.length === 0
      ? html`<p>No pairing requests are waiting.</p>`
      : html`<div class="table-scroll"><table>
<caption>Pending pairing requests, oldest first</caption>
<thead><tr><th scope="col">Code</th><th scope="col">User</th><th scope="col">Account</th><th scope="col">Requested</th><th scope="col">Expires</th>!${
          context.readOnly ? EMPTY_HTML : html`<th scope="col">Action</th>`
        }</tr></thead>
<tbody>!${input.pending.map(
          (request) => html`<tr>
<th scope="row"><code>${request.code}</code></th>
<td>${userOf(request)}</td>
<td>${request.accountId}</td>
<td>!${timeOf(request.createdAt)}</td>
<td>!${timeOf(request.expiresAt)} (in ${Math.max(1, Math.ceil((request.expiresAt.getTime() - input.now.getTime()) / 60_000))} min)</td>
!${
            context.readOnly
              ? EMPTY_HTML
              : html`<td>!${context.actionForm(reply, { action: APPROVE_PATH, fields: { code: request.code }, label: 'Approve', detail: userOf(request) })}</td>`
          }
</tr>`,
        )}</tbody>
</table></div>`;
  return html`!${input.outcome ?? EMPTY_HTML}!${policy}!${intro}!${list}`;
}
