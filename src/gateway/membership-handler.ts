import type { ChatMembershipChange, ChatMembershipSink } from '../core/chat-membership.js';
import { sessionKeyOf } from '../core/session-key.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { topicPausedReason } from '../schedules/index.js';

type TaskPlace = { channel: string; accountId: string; chatId?: string | undefined; threadId?: string | undefined };

interface ChatTasks {
  pauseChat(chat: TaskPlace, reason: string): Promise<Array<{ id: string; chatKey: string }>>;
  resumeChat(chat: TaskPlace): Promise<Array<{ id: string }>>;
}

export interface ChatMembershipHandlerOptions {
  schedules: ChatTasks;
  /** /stop for one chat-level session key: aborts its running turns and drops what waits (its threads too). */
  stopSession(sessionKey: string): Promise<{ abortedTurns: number; droppedMessages: number }>;
  /** The agent bound to the chat (its session key names it). */
  agentOf(chat: { channel: ChatMembershipChange['channel']; accountId: string; chatType: 'dm' | 'group'; chatId: string }): string;
  logger: Logger;
  metrics?: Metrics | undefined;
}

function pausedReasonOf(change: ChatMembershipChange): string {
  if (!change.chat) return `the bot was removed from the workspace (${change.reason})`;
  if (change.chat.threadId !== undefined) return topicPausedReason(change.reason);
  return change.chat.chatType === 'dm' ? `the user blocked the bot (${change.reason})` : `the bot was removed from the chat (${change.reason})`;
}

/**
 * What the gateway does when the platform says the bot left a chat or came back (every transport of every
 * channel ends here): removed, the chat's scheduled tasks are paused and its waiting work dropped at once, as
 * /stop drops it (the answers could not be delivered); added back or unblocked, its paused tasks resume. Both
 * are a log line and `bot_chat_membership_changes_total`. Idempotent, so a redelivered event changes nothing.
 * A topic closed (or refused as gone) pauses that topic's tasks only, and reopened resumes them; its waiting work
 * stays: an answer Telegram refuses in the topic arrives in the main chat instead.
 */
export function createChatMembershipHandler(options: ChatMembershipHandlerOptions): ChatMembershipSink {
  const { logger, metrics } = options;
  return async (change) => {
    const threadId = change.chat?.threadId;
    const where = { channel: change.channel, accountId: change.accountId, chatId: change.chat?.chatId, ...(threadId !== undefined ? { threadId } : {}) };
    const context = { ...where, chatType: change.chat?.chatType, reason: change.reason, by: change.by };
    try {
      if (threadId !== undefined) {
        const tasks = change.change === 'added' ? await options.schedules.resumeChat(where) : await options.schedules.pauseChat(where, pausedReasonOf(change));
        logger.info({ ...context, [change.change === 'added' ? 'resumedTasks' : 'pausedTasks']: tasks.map((task) => task.id) }, change.change === 'added' ? 'the topic is open again: its paused scheduled tasks resumed' : "the topic is closed or gone: its scheduled tasks paused");
      } else if (change.change === 'added') {
        const resumed = await options.schedules.resumeChat(where);
        logger.info({ ...context, resumedTasks: resumed.map((task) => task.id) }, 'the bot is back in the chat: its paused scheduled tasks resumed');
      } else {
        const paused = await options.schedules.pauseChat(where, pausedReasonOf(change));
        const sessionKeys = new Set(paused.map((task) => task.chatKey));
        if (change.chat) sessionKeys.add(chatSessionKey(options, change, change.chat));
        let droppedMessages = 0;
        let abortedTurns = 0;
        for (const sessionKey of sessionKeys) {
          const stopped = await options.stopSession(sessionKey);
          droppedMessages += stopped.droppedMessages;
          abortedTurns += stopped.abortedTurns;
        }
        logger.warn(
          { ...context, pausedTasks: paused.map((task) => task.id), droppedMessages, abortedTurns },
          'the bot was removed from the chat: its scheduled tasks paused and its waiting work dropped',
        );
      }
      metrics?.chatMembershipChanges.inc({ channel: change.channel, change: change.change });
      return { kind: 'recorded' };
    } catch (error) {
      logger.error({ err: error, ...context, change: change.change }, 'could not record that the bot was removed from or added to a chat');
      return { kind: 'rejected', reason: 'membership change not recorded' };
    }
  };
}

function chatSessionKey(options: ChatMembershipHandlerOptions, change: ChatMembershipChange, chat: NonNullable<ChatMembershipChange['chat']>): string {
  const location = { channel: change.channel, accountId: change.accountId, chatType: chat.chatType, chatId: chat.chatId };
  return sessionKeyOf({
    agentId: options.agentOf(location),
    conversation: { ...location, messageId: '' },
    sender: { id: chat.userId ?? chat.chatId },
  });
}
