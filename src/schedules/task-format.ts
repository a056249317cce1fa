import type { ScheduledTask } from './task-repository.js';

const clip = (text: string, limit: number): string => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);

export function describeSchedule(task: Pick<ScheduledTask, 'kind' | 'schedule' | 'timezone'>): string {
  switch (task.kind) {
    case 'at':
      return `once at ${task.schedule}`;
    case 'cron':
      return `cron "${task.schedule}" (${task.timezone})`;
    case 'every':
      return `every ${task.schedule} s`;
  }
}

/** One task as `/tasks` and `list_tasks` show it: id, schedule, next run, last outcome, prompt. */
export function describeTask(task: ScheduledTask): string {
  const parts = [`${task.id}: ${describeSchedule(task)}`];
  // listed from the chat itself, a forum topic's task says where it answers
  if (task.threadKind === 'topic' && task.conversation.threadId !== undefined) parts.push(`in topic ${task.conversation.threadId}`);
  if (task.status === 'paused') parts.push(task.pausedReason ? `paused (${task.pausedReason})` : 'paused');
  if (task.nextRunAt) parts.push(`next ${task.nextRunAt.toISOString().replace('.000Z', 'Z')}`);
  if (task.lastRunAt) {
    const outcome = task.lastOutcome ?? 'queued';
    parts.push(`last ${task.lastRunAt.toISOString().replace('.000Z', 'Z')} ${outcome}${task.lastError ? ` (${clip(task.lastError, 120)})` : ''}`);
  }
  return `${parts.join(' · ')}\n  ${clip(task.prompt.replace(/\s+/g, ' '), 200)}`;
}

export function describeTasks(tasks: ScheduledTask[]): string {
  if (tasks.length === 0) return 'No scheduled tasks in this chat.';
  return [`Scheduled tasks (${tasks.length}); /tasks cancel <id> cancels one:`, ...tasks.map(describeTask)].join('\n');
}
