import type { FastifyReply } from 'fastify';
import { describeSchedule } from '../../../schedules/task-format.js';
import type { ConsoleTask, ConsoleTaskChat } from '../../../store/index.js';
import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { ConsoleContext } from '../console-section.js';
import { pathWithQuery, shorten, timeOf } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';
import { chatKind, chatLabel, personName } from '../names.js';
import { sessionPath } from '../sessions/sessions-page.js';

export const SCHEDULES_PATH = `${ADMIN_PREFIX}/schedules`;
export const CANCEL_TASK_PATH = `${SCHEDULES_PATH}/cancel`;
export const SCHEDULE_CHATS_PAGE_SIZE = 25;

export interface SchedulesPageInput {
  chats: ConsoleTaskChat[];
  limit: number;
  cursor: string | undefined;
  nextCursor: string | undefined;
  /** Whether tasks can be cancelled from here (the process has the schedule service). */
  canCancel: boolean;
  outcome?: Html;
}

const OUTCOME_BADGES: Record<string, string> = { completed: 'badge completed', silent: 'badge completed', failed: 'badge failed', cancelled: 'badge cancelled', skipped: 'badge cancelled' };

function lastRun(task: ConsoleTask): Html {
  if (!task.lastRunAt) return html`not yet`;
  const outcome = task.lastOutcome ?? 'queued';
  return html`!${timeOf(task.lastRunAt)} <span class="${OUTCOME_BADGES[outcome] ?? 'badge'}">${outcome}</span>!${
    task.lastError ? html`<br><span class="mono">${shorten(task.lastError, 200)}</span>` : EMPTY_HTML
  }`;
}

function creator(task: ConsoleTask): Html {
  const name = personName({ name: task.creatorLabel, username: task.creatorUsername });
  return name ? html`${name}<br><code>${task.creatorId}</code>` : html`<code>${task.creatorId}</code>`;
}

function chatSection(context: ConsoleContext, reply: FastifyReply, chat: ConsoleTaskChat, index: number, canCancel: boolean): Html {
  const label = chatLabel(chat);
  const headingId = `chat-${index}`;
  const actions = canCancel && !context.readOnly;
  const rows = chat.tasks.map(
    (task) => html`<tr>
<th scope="row"><code>${task.id}</code>!${task.status === 'paused' ? html` <span class="badge cancelled">paused</span>` : EMPTY_HTML}</th>
<td>${describeSchedule(task)}</td>
<td><span class="text">${shorten(task.prompt, 300)}</span></td>
<td>!${creator(task)}</td>
<td>!${task.nextRunAt ? timeOf(task.nextRunAt) : html`–`}</td>
<td>!${lastRun(task)}</td>
!${actions ? html`<td>!${context.actionForm(reply, { action: CANCEL_TASK_PATH, fields: { id: task.id }, label: 'Cancel', detail: `task ${task.id} of ${label}` })}</td>` : EMPTY_HTML}
</tr>`,
  );
  return html`<section aria-labelledby="${headingId}">
<h2 id="${headingId}"><a href="${sessionPath(chat.sessionKey)}">${label}</a></h2>
<p class="lead">${chat.channel} · !${chatKind(chat)} <code>${chat.chatKey}</code></p>
<div class="table-scroll"><table>
<caption>Tasks of ${label}, oldest first</caption>
<thead><tr><th scope="col">Task</th><th scope="col">Schedule</th><th scope="col">Prompt</th><th scope="col">Created by</th><th scope="col">Next run</th><th scope="col">Last run</th>!${
    actions ? html`<th scope="col">Action</th>` : EMPTY_HTML
  }</tr></thead>
<tbody>!${rows}</tbody>
</table></div>
</section>`;
}

export function schedulesPage(context: ConsoleContext, reply: FastifyReply, input: SchedulesPageInput): Html {
  const intro = html`<p class="lead">Tasks the model created with <code>schedule_task</code>, by chat: each firing runs one turn in the chat's session. Cancelling one here is <code>/tasks cancel &lt;id&gt;</code> in the chat.</p>`;
  if (input.chats.length === 0) {
    return html`!${input.outcome ?? EMPTY_HTML}!${intro}<p>No scheduled tasks${input.cursor ? ' after these chats' : ''}.</p>`;
  }
  const limit = input.limit === SCHEDULE_CHATS_PAGE_SIZE ? undefined : input.limit;
  const pager = html`<nav class="pager" aria-label="Pages of chats with tasks">!${input.cursor ? html`<a href="${pathWithQuery(SCHEDULES_PATH, { limit })}">First chats</a>` : EMPTY_HTML}!${
    input.nextCursor ? html`<a rel="next" href="${pathWithQuery(SCHEDULES_PATH, { cursor: input.nextCursor, limit })}">More chats</a>` : EMPTY_HTML
  }</nav>`;
  return html`!${input.outcome ?? EMPTY_HTML}!${intro}!${input.chats.map((chat, index) => chatSection(context, reply, chat, index, input.canCancel))}!${pager}`;
}
