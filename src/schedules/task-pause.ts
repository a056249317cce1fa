import type { Logger } from '../observability/logger.js';
import type { StoreDatabase } from '../store/database.js';
import type { ScheduleQueue } from './schedule-queue.js';
import { pauseTasks, resumeTasks, setNextRun, type ScheduledTask, type TaskSelection } from './task-repository.js';

export interface TaskPauseDependencies {
  db: StoreDatabase;
  schedules: ScheduleQueue;
  logger: Logger;
  clock?: () => number;
}

/**
 * The bot is no longer in a chat (the platform said so, or refused a delivery there): its tasks are paused with
 * the reason and their firings removed from Redis. A firing already handed to its session still sees the task
 * paused and ends there. Returns the tasks paused.
 */
export async function pauseAndDisarm(deps: TaskPauseDependencies, selection: TaskSelection, reason: string): Promise<ScheduledTask[]> {
  const paused = await pauseTasks(deps.db, selection, reason);
  for (const task of paused) {
    await deps.schedules.disarm(task).catch((error: unknown) => deps.logger.warn({ err: error, taskId: task.id }, 'could not remove a paused task\'s firing from Redis; the worker skips it'));
  }
  return paused;
}

/**
 * The bot is back in the chat: its paused tasks are active again and armed from now (a repeating task's next
 * time; a one-shot whose time passed meanwhile runs once, as after an outage). Tasks paused for a reason starting
 * with `keepPausedFor` stay paused. Returns the tasks resumed.
 */
export async function resumeAndArm(deps: TaskPauseDependencies, selection: TaskSelection, keepPausedFor?: string): Promise<ScheduledTask[]> {
  const resumed = await resumeTasks(deps.db, selection, keepPausedFor);
  const now = (deps.clock ?? Date.now)();
  for (const task of resumed) {
    try {
      task.nextRunAt = await deps.schedules.arm(task, now);
      await setNextRun(deps.db, task.id, task.nextRunAt);
    } catch (error) {
      // active without a firing in Redis: the next worker start arms it (FiringWorker.rearmMissing)
      deps.logger.warn({ err: error, taskId: task.id }, 'could not arm a resumed task');
    }
  }
  return resumed;
}
