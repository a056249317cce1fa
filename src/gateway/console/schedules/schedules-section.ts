import type { FastifyInstance, FastifyReply } from 'fastify';
import { findConsoleTask, liveTaskChats, type ConsoleTask, type ConsoleTaskChat } from '../../../store/index.js';
import type { ConsoleContext, ConsoleSection } from '../console-section.js';
import { shorten } from '../format.js';
import { html, type Html } from '../html.js';
import { ConsoleRequestError, SchedulesQuerySchema, type SchedulesQueryParameters } from '../query-parameters.js';
import { SCHEDULE_CHATS_PAGE_SIZE, SCHEDULES_PATH, schedulesPage } from './schedules-page.js';

const LIVE = new Set(['active', 'paused']);

const encodeCursor = (chatKey: string) => Buffer.from(chatKey, 'utf8').toString('base64url');

function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const chatKey = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!chatKey.startsWith('agent:')) throw new ConsoleRequestError(400, 'cursor: not a cursor this API returned (use nextCursor from the previous page)');
  return chatKey;
}

function taskJson(task: ConsoleTask) {
  return {
    id: task.id,
    status: task.status,
    kind: task.kind,
    schedule: task.schedule,
    timezone: task.timezone,
    prompt: task.prompt,
    sessionKey: task.sessionKey,
    creatorId: task.creatorId,
    ...(task.creatorLabel ? { creatorName: task.creatorLabel } : {}),
    ...(task.creatorUsername ? { creatorUsername: task.creatorUsername } : {}),
    nextRunAt: task.nextRunAt?.toISOString() ?? null,
    lastRunAt: task.lastRunAt?.toISOString() ?? null,
    lastOutcome: task.lastOutcome,
    lastError: task.lastError,
    createdAt: task.createdAt.toISOString(),
  };
}

function chatJson(chat: ConsoleTaskChat) {
  return {
    chatKey: chat.chatKey,
    sessionKey: chat.sessionKey,
    channel: chat.channel,
    chatId: chat.chatId,
    chatType: chat.chatType,
    ...(chat.title ? { title: chat.title } : {}),
    ...(chat.userName ? { userName: chat.userName } : {}),
    ...(chat.username ? { username: chat.username } : {}),
    tasks: chat.tasks.map(taskJson),
  };
}

/** Scheduled tasks by chat (next run, last outcome) and cancelling one, as `/tasks cancel` does. */
export const schedulesSection: ConsoleSection = {
  id: 'schedules',
  title: 'Schedules',
  description: 'Every chat’s scheduled tasks with their next run and last outcome; cancel one.',
  register(routes: FastifyInstance, context: ConsoleContext) {
    const { db } = context.deps;
    const list = async (query: SchedulesQueryParameters) => {
      const limit = query.limit ?? SCHEDULE_CHATS_PAGE_SIZE;
      const page = await liveTaskChats(db, { limit, after: decodeCursor(query.cursor) });
      return { chats: page.chats, limit, nextCursor: page.nextAfter === undefined ? undefined : encodeCursor(page.nextAfter) };
    };
    const render = async (reply: FastifyReply, query: SchedulesQueryParameters, outcome: Html | undefined, status = 200) => {
      const page = await list(query);
      return context.page(reply, {
        section: 'schedules',
        title: 'Scheduled tasks',
        status,
        body: schedulesPage(context, reply, { ...page, cursor: query.cursor, canCancel: context.deps.schedules !== undefined, ...(outcome ? { outcome } : {}) }),
      });
    };

    routes.get<{ Querystring: SchedulesQueryParameters }>('/schedules', { schema: { querystring: SchedulesQuerySchema } }, async (request, reply) => {
      const cancelled = request.query.cancelled ? await findConsoleTask(db, request.query.cancelled) : undefined;
      const outcome =
        cancelled?.status === 'cancelled'
          ? html`<p class="notice" role="status">Cancelled task ${cancelled.id} (“${shorten(cancelled.prompt, 80)}”): it will not fire again.</p>`
          : undefined;
      return render(reply, request.query, outcome);
    });

    routes.post<{ Body: unknown }>('/schedules/cancel', async (request, reply) => {
      const { schedules } = context.deps;
      if (!schedules) throw new ConsoleRequestError(404, 'scheduled tasks cannot be cancelled from this process');
      const id = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>).id : undefined;
      if (typeof id !== 'string' || id.trim() === '') throw new ConsoleRequestError(400, 'id: the task to cancel is missing');
      const task = await findConsoleTask(db, id.trim());
      const refusal = (status: number, message: string) => render(reply, {}, html`<p class="notice problem" role="alert">${message}</p>`, status);
      if (!task) return refusal(404, `No scheduled task has the id ${id.trim()}.`);
      if (!LIVE.has(task.status)) return refusal(409, `Task ${task.id} has already ended (${task.status}).`);
      if ((await schedules.cancel(task.sessionKey, task.id)) === undefined) return refusal(409, `Task ${task.id} has already ended.`);
      context.deps.logger.info({ taskId: task.id, chatKey: task.chatKey }, 'scheduled task cancelled from the console');
      // post/redirect/get: reloading the page does not post again
      return reply.redirect(`${SCHEDULES_PATH}?cancelled=${encodeURIComponent(task.id)}`, 303);
    });

    routes.get<{ Querystring: SchedulesQueryParameters }>('/api/schedules', { schema: { querystring: SchedulesQuerySchema } }, async (request) => {
      const page = await list(request.query);
      return { chats: page.chats.map(chatJson), nextCursor: page.nextCursor ?? null };
    });
  },
};
