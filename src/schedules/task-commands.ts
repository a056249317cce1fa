import type { InboundMessage } from '../core/inbound-message.js';
import { sessionKeyOf } from '../core/session-key.js';
import type { ScheduleService } from './schedule-service.js';
import { describeTasks } from './task-format.js';

/** `/tasks` lists the chat's tasks; `/tasks cancel <id>` cancels one. */
export async function tasksCommand(service: ScheduleService, message: InboundMessage, args: string): Promise<string> {
  const sessionKey = sessionKeyOf(message);
  const [action, id] = args.trim().split(/\s+/);
  if (!action) return describeTasks(await service.list(sessionKey));
  if (action.toLowerCase() !== 'cancel' || !id) return 'Usage: /tasks to list, /tasks cancel <id> to cancel one.';
  const task = await service.cancel(sessionKey, id);
  return task ? `Cancelled task ${task.id}.` : `No scheduled task ${id} in this chat.`;
}
