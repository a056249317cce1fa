import type { TurnOutcome } from '../core/turn-contract.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { StoreDatabase } from '../store/database.js';
import type { TurnRecord } from '../store/turn-record.js';
import type { ScheduleQueue } from './schedule-queue.js';
import { pauseAndDisarm } from './task-pause.js';
import { recordOutcome } from './task-repository.js';

/** Platform refusals that mean the bot is no longer in the chat (Telegram, Slack, Feishu wording). */
const CHAT_GONE = /kicked|blocked by the user|chat not found|channel_not_found|not_in_channel|is_archived|bot is not|not in the chat|user is deactivated|have no rights to send/i;

export function isChatGone(error: string): boolean {
  return CHAT_GONE.test(error);
}

/**
 * The after-turn hook for firings: the turn's outcome goes on the task (`/tasks` shows it). A delivery that
 * failed is also a warning in the log and a metric; when the platform says the bot left the chat, the chat's
 * tasks are paused instead of failing at every firing (as when the platform reports the bot removed).
 */
export function createFiringOutcomeRecorder(deps: { db: StoreDatabase; schedules: ScheduleQueue; logger: Logger; metrics?: Metrics | undefined }) {
  return async ({ messages, record, outcome }: { messages: InboundMessage[]; record: TurnRecord; outcome: TurnOutcome }): Promise<void> => {
    for (const message of messages) {
      if (!message.scheduled) continue;
      const { taskId, firingId } = message.scheduled;
      const error = record.run.error ?? undefined;
      const deliveryFailed = outcome.kind === 'failed' && error?.startsWith('delivery failed') === true;
      await recordOutcome(deps.db, taskId, deliveryFailed ? 'delivery failed' : outcome.kind, outcome.kind === 'failed' ? error : undefined);
      if (!deliveryFailed) continue;
      deps.metrics?.scheduledDeliveryFailures.inc({ channel: message.conversation.channel });
      deps.logger.warn({ taskId, firingId, sessionKey: record.sessionKey, error }, 'scheduled task answer could not be delivered');
      if (isChatGone(error!)) {
        const { channel, accountId, chatId } = message.conversation;
        const paused = await pauseAndDisarm(deps, { channel, accountId, chatId }, 'the chat refused the answer: the bot is no longer in it');
        deps.logger.warn({ taskId, chatId, paused: paused.map((task) => task.id) }, "the bot is no longer in the chat: the chat's scheduled tasks paused");
      }
    }
  };
}
