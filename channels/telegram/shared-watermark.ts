import { BotError, type ConversationRef, type SharedHighMarks } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { targetOf } from './conversation-target.js';
import { isPrivate, type MessageIdWatermark } from './message-ids.js';

const PUBLISH_EVERY_MS = 1_000;
const MARK_TTL_SECONDS = 7 * 24 * 3600;
/** The ids of the private chats' counter each process saw, kept this far below the newest (a search's reach and more). */
const SIGHTINGS_KEPT = 50_000;
const SIGHTINGS_TTL_SECONDS = 24 * 3600;
/** The most sightings one search reads. */
const SIGHTINGS_READ = 20_000;

/**
 * The bot's private chats share one message id counter, and a process that has just started (a restarted worker
 * taking over a dead one's turns) has seen none of it: its probe for a part in doubt would stop short of where the
 * counter is. Each process publishes the highest private id it has seen (at most once a second, only when it
 * grew), and a probe reads what all of them have seen: one read per part in doubt, nothing per message.
 *
 * With it, each process publishes the private ids it saw, each with its chat (or as a user's message), in the same
 * once-a-second write: a search for a part of chat C need not try an id some process saw taken by another chat or
 * by a user, which under load is nearly every id between a part's bound and the part. An id seen in chat C itself
 * is tried (it may be the part: its sender saw it and died before recording it).
 */
export function shareWatermark(watermark: MessageIdWatermark, marks: SharedHighMarks, botId: number, logger: Logger) {
  const key = `telegram:${botId}:private-high`;
  const sightingsKey = `telegram:${botId}:private-seen`;
  let published = 0;
  const publish = async (): Promise<void> => {
    const high = watermark.privateHighest();
    const sightings = watermark.takeSightings();
    await Promise.all([
      high > published ? marks.raise(key, high, MARK_TTL_SECONDS).then(() => void (published = Math.max(published, high))) : undefined,
      marks.note(sightingsKey, sightings, SIGHTINGS_KEPT, SIGHTINGS_TTL_SECONDS),
    ]);
  };
  const timer = setInterval(() => {
    publish().catch((error: unknown) => logger.debug({ err: error }, 'could not publish the message ids seen'));
  }, PUBLISH_EVERY_MS);
  timer.unref();
  return {
    /**
     * The highest id a message in `to` may have now, as far as any process of this bot knows. When Redis cannot be
     * read this fails: taking 0 would end a search at this process's own ids and answer "not sent" for a part a
     * dead process sent past them (a duplicate); the turn waits and tries again instead.
     */
    async highest(to: ConversationRef): Promise<number> {
      const shared = await marks.read(key).catch((error: unknown) => {
        throw new BotError('storage', 'telegram: the message ids other processes saw could not be read from Redis, so a part in doubt cannot be looked for yet', { cause: error, isRetryable: true });
      });
      return watermark.highest(to, shared);
    },
    publishedWithinMs: PUBLISH_EVERY_MS + 500,
    /**
     * Ids from `from` to `through` that are not a part of `to` (a private chat), as far as any process (this one
     * included, up to now) saw: another chat's, or a user's message.
     */
    async othersIds(to: ConversationRef, from: number, through: number): Promise<Set<number>> {
      const chat = String(targetOf(to).chat_id);
      if (!isPrivate(chat) || through < from) return new Set();
      await publish().catch(() => undefined);
      // unread sightings only make the search try more ids
      const sightings = await marks.noted(sightingsKey, from, through, SIGHTINGS_READ).catch(() => []);
      return new Set(sightings.filter((sighting) => sighting.tag !== chat).map((sighting) => sighting.value));
    },
  };
}
