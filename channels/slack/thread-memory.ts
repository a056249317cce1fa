import type { ChannelState, ConversationRef } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';

/** How long a thread the bot answered in keeps counting as addressed without a new mention. */
export const BOT_THREAD_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface ThreadMemory {
  isBotThread(channel: string, threadTs: string): Promise<boolean>;
  /** Called after the bot posted into a channel thread. */
  rememberReply(to: ConversationRef): Promise<void>;
}

/** "The bot is part of this thread", shared by every gateway and worker process through the channel state. */
export function createThreadMemory(state: ChannelState, teamId: string, logger: Logger): ThreadMemory {
  const keyOf = (channel: string, threadTs: string): string => `slack-thread:${teamId}:${channel}:${threadTs}`;
  return {
    async isBotThread(channel, threadTs) {
      try {
        return await state.has(keyOf(channel, threadTs));
      } catch (error) {
        logger.warn({ channel, error: String(error) }, 'could not read slack thread memory; treating the thread as not addressed');
        return false;
      }
    },
    async rememberReply(to) {
      if (to.chatType !== 'group' || to.threadId === undefined) return;
      try {
        await state.remember(keyOf(to.chatId, to.threadId), BOT_THREAD_TTL_SECONDS);
      } catch (error) {
        logger.warn({ channel: to.chatId, error: String(error) }, 'could not remember the slack thread');
      }
    },
  };
}
