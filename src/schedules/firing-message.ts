import type { InboundMessage } from '../core/inbound-message.js';
import type { ScheduledTask } from './task-repository.js';

/** A BullMQ job id (`repeat:<task>:<millis>`, `at.<task>`) as a firing id: the same for every retry of one firing. */
export const firingIdOf = (jobId: string): string => jobId.replaceAll(':', '.');

/**
 * A firing as the message that enters the task's session through the same path as a person's: its dedupe key
 * comes from the firing id, so a retried or doubly-delivered firing is queued once.
 */
export function firingMessage(task: ScheduledTask, firingId: string, firedAt: number): InboundMessage {
  return {
    conversation: task.conversation,
    dedupeKey: `schedule.${firingId}`,
    sender: { id: task.creatorId, ...(task.creatorName ? { name: task.creatorName } : {}) },
    text: task.prompt,
    sentAt: firedAt,
    addressed: true,
    agentId: task.agentId,
    ...(task.threadKind ? { threadKind: task.threadKind } : {}),
    scheduled: { taskId: task.id, firingId },
  };
}
