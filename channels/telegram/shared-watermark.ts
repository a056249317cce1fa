import type { ConversationRef, SharedHighMarks } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import type { MessageIdWatermark } from './message-ids.js';

const PUBLISH_EVERY_MS = 1_000;
const MARK_TTL_SECONDS = 7 * 24 * 3600;

/**
 * The bot's private chats share one message id counter, and a process that has just started (a restarted worker
 * taking over a dead one's turns) has seen none of it: its probe for a part in doubt would stop short of where the
 * counter is. Each process publishes the highest private id it has seen (at most once a second, only when it
 * grew), and a probe reads what all of them have seen: one read per part in doubt, nothing per message.
 */
export function shareWatermark(watermark: MessageIdWatermark, marks: SharedHighMarks, botId: number, logger: Logger) {
  const key = `telegram:${botId}:private-high`;
  let published = 0;
  const timer = setInterval(() => {
    const high = watermark.privateHighest();
    if (high <= published) return;
    published = high;
    marks.raise(key, high, MARK_TTL_SECONDS).catch((error: unknown) => logger.debug({ err: error }, 'could not publish the highest message id seen'));
  }, PUBLISH_EVERY_MS);
  timer.unref();
  return {
    /** The highest id a message in `to` may have now, as far as any process of this bot knows. */
    async highest(to: ConversationRef): Promise<number> {
      const shared = await marks.read(key).catch(() => 0);
      return watermark.highest(to, shared);
    },
  };
}
