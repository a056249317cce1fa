import type { ChannelState, InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { sanitizingSink, type BoundaryOutcome } from '../shared/index.js';
import { groupReplyTargetOf, normalizeMessageEvent, type FeishuIdentity } from './inbound.js';

/** Feishu redelivers an unacknowledged event for hours (15 s, 5 min, 1 h, 6 h); a day covers every retry. */
const EVENT_MEMORY_SECONDS = 24 * 60 * 60;
/** How long a reply to one of the bot's messages counts as addressing it. */
const BOT_MESSAGE_MEMORY_SECONDS = 7 * 24 * 60 * 60;

export type MessageEventHandler = (event: unknown, eventId: string | undefined) => Promise<BoundaryOutcome | undefined>;

/** What the channel remembers across processes: delivered event ids and the ids of the bot's own messages. */
export function createChannelMemory(state: ChannelState, appId: string, logger: Logger) {
  const eventKey = (eventId: string): string => `feishu:${appId}:event:${eventId}`;
  const botMessageKey = (messageId: string): string => `feishu:${appId}:bot-message:${messageId}`;
  // the memory only saves work; when Redis is unreachable the queue's dedupe on message_id still holds
  const unavailable = (error: unknown): void => logger.warn({ error: String(error) }, 'feishu channel state unavailable');
  const has = async (key: string): Promise<boolean> => {
    try {
      return await state.has(key);
    } catch (error) {
      unavailable(error);
      return false;
    }
  };
  const remember = async (key: string, ttlSeconds: number): Promise<void> => {
    await state.remember(key, ttlSeconds).catch(unavailable);
  };
  return {
    seenEvent: (eventId: string) => has(eventKey(eventId)),
    rememberEvent: (eventId: string) => remember(eventKey(eventId), EVENT_MEMORY_SECONDS),
    isBotMessage: (messageId: string) => has(botMessageKey(messageId)),
    rememberBotMessage: (messageId: string) => remember(botMessageKey(messageId), BOT_MESSAGE_MEMORY_SECONDS),
  };
}

export type ChannelMemory = ReturnType<typeof createChannelMemory>;

/**
 * The inbound path every transport ends in (HTTP events and the long connection): drop a redelivered
 * event, check and normalize, hand to the sink (which only enqueues) sanitized, remember the event once
 * it is taken. A wrongly typed event is `invalid`, for the transport to refuse without a redelivery.
 */
export function createMessageEventHandler(options: { identity: FeishuIdentity; memory: ChannelMemory; sink: InboundSink; logger: Logger }): MessageEventHandler {
  const { identity, memory, logger } = options;
  const sink = sanitizingSink(options.sink);
  return async (event, eventId) => {
    if (eventId !== undefined && (await memory.seenEvent(eventId))) return { kind: 'duplicate' };
    const replyTarget = groupReplyTargetOf(event);
    const repliesToBot = replyTarget !== undefined && (await memory.isBotMessage(replyTarget));
    const normalized = normalizeMessageEvent(event, identity, { repliesToBot });
    if (normalized.kind === 'invalid') return normalized;
    if (normalized.kind === 'ignored') {
      logger.info({ eventId, reason: normalized.reason }, 'feishu message ignored');
      return { kind: 'ignored', reason: normalized.reason };
    }
    if (normalized.dropped) logger.info({ eventId, dropped: normalized.dropped }, 'feishu event: fields of the wrong type dropped');
    const outcome = await sink(normalized.message);
    if (outcome.kind !== 'rejected' && eventId !== undefined) await memory.rememberEvent(eventId);
    return outcome;
  };
}
