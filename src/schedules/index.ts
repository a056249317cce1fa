export { ScheduleQueue, SCHEDULES_QUEUE } from './schedule-queue.js';
export { ScheduleService, chatKeyOf, topicPausedReason, type ScheduleLimitsConfig } from './schedule-service.js';
export { FiringWorker } from './firing-worker.js';
export { createScheduleTools } from './schedule-tools.js';
export { tasksCommand } from './task-commands.js';
export { createFiringOutcomeRecorder, isChatGone } from './firing-outcome.js';
export { parseSchedule, nextRunAfter, isTimezone, type ScheduleSpec } from './schedule-spec.js';
