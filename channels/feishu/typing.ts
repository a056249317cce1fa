import type { ConversationRef, WorkingIndicator } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import type { MessagesApi } from './messages-api.js';

/** Feishu's "typing" emoji (a hand on a keyboard), put on the triggering message while the bot works. */
export const TYPING_EMOJI = 'Typing';

/** Adds the reaction at once and removes it at stop; failures only get a log line, the answer matters more. */
export function startTypingReaction(api: MessagesApi, to: ConversationRef, logger: Logger): WorkingIndicator {
  const added = api.addReaction(to.messageId, TYPING_EMOJI).catch((error: unknown) => {
    logger.debug({ messageId: to.messageId, error: String(error) }, 'feishu typing reaction failed');
    return undefined;
  });
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      const reactionId = await added;
      if (reactionId === undefined) return;
      await api.removeReaction(to.messageId, reactionId).catch((error: unknown) => {
        logger.debug({ messageId: to.messageId, error: String(error) }, 'feishu typing reaction removal failed');
      });
    },
  };
}
