import { Type } from '@sinclair/typebox';
import { defineTool, ToolError, type AgentTool, type ToolContext } from '../agent/tools/agent-tool.js';
import type { ScheduleService, TaskCreator } from './schedule-service.js';
import { describeSchedule, describeTasks } from './task-format.js';

const ScheduleTaskParameters = Type.Object({
  prompt: Type.String({ minLength: 1, description: 'What to do when it fires, written as an instruction to yourself' }),
  at: Type.Optional(Type.String({ description: 'ISO 8601 time of a one-time run, e.g. 2026-05-01T09:00:00+02:00' })),
  cron: Type.Optional(Type.String({ description: 'Repeat on a 5-field cron expression, e.g. "0 9 * * 1-5"' })),
  every_seconds: Type.Optional(Type.Integer({ minimum: 1, description: 'Repeat every this many seconds' })),
  timezone: Type.Optional(Type.String({ description: "IANA time zone for cron and for at without an offset (default: the service's)" })),
});
const ListTasksParameters = Type.Object({});
const CancelTaskParameters = Type.Object({ id: Type.String({ minLength: 1, description: 'The task id from list_tasks' }) });

function creatorOf(context: ToolContext): TaskCreator {
  if (!context.conversation || !context.agentId) throw new ToolError('Scheduled tasks can only be created inside a chat.');
  return { sessionKey: context.sessionKey, conversation: context.conversation, agentId: context.agentId, userId: context.userId };
}

/** `schedule_task`, `list_tasks`, `cancel_task` (CONTRACT §12). */
export function createScheduleTools(service: ScheduleService): AgentTool[] {
  return [
    defineTool({
      name: 'schedule_task',
      description:
        'Schedule a prompt to run later in this chat: once (at), on a cron schedule (cron) or repeatedly (every_seconds); give exactly one. ' +
        'When it fires you get the prompt and answer into this chat (or NO_REPLY).',
      parameters: ScheduleTaskParameters,
      category: 'write',
      label: 'Scheduling a task…',
      async execute(args, context) {
        const task = await service.create(creatorOf(context), args);
        return `Scheduled task ${task.id}: ${describeSchedule(task)}; first run ${task.nextRunAt?.toISOString() ?? 'unknown'}.`;
      },
    }),
    defineTool({
      name: 'list_tasks',
      description: "List this chat's scheduled tasks with their ids, schedules, next run and last outcome.",
      parameters: ListTasksParameters,
      category: 'read',
      label: 'Checking scheduled tasks…',
      async execute(_args, context) {
        return describeTasks(await service.list(context.sessionKey));
      },
    }),
    defineTool({
      name: 'cancel_task',
      description: 'Cancel one of the scheduled tasks of this chat by its id.',
      parameters: CancelTaskParameters,
      category: 'write',
      label: 'Cancelling a task…',
      async execute({ id }, context) {
        const task = await service.cancel(context.sessionKey, id);
        if (!task) throw new ToolError(`No scheduled task ${id} in this chat (list_tasks shows the ids).`);
        return `Cancelled task ${task.id}.`;
      },
    }),
  ];
}
