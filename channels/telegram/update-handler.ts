import type { ChatMembershipChange, ChatMembershipOutcome, InboundMessage, InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { sanitizingSink, type BoundaryOutcome } from '../shared/index.js';
import type { CallbackQuery } from './approval-buttons.js';
import { normalizeUpdate, type BotIdentity } from './inbound.js';
import { membershipChangeOf } from './membership.js';
import { topicChangeOf } from './topic-events.js';
import { checkUpdate } from './update-schema.js';

/** undefined: an update the bot does not answer (nothing for the sink). */
export type UpdateHandler = (update: unknown) => Promise<BoundaryOutcome | undefined>;

/**
 * The one inbound path of webhook and long polling: check the payload, normalize, sanitize, hand to the sink.
 * A button click (callback_query) goes to `onCallbackQuery` instead, the bot's own membership change
 * (my_chat_member) to `onMembership`, as does a topic closed or reopened (`forum_topic_closed` / `_reopened`).
 */
export function createUpdateHandler(
  identity: BotIdentity,
  sink: InboundSink,
  logger: Logger,
  onCallbackQuery?: (query: CallbackQuery) => Promise<void>,
  onMembership?: (change: ChatMembershipChange) => Promise<ChatMembershipOutcome>,
  /** Every user's message id: the ids a takeover's probe must reach, and need not try (shared-watermark.ts). */
  sawMessage?: (chatId: number | string, messageId: number) => void,
  /** Every normalized message, after the sink took it (a topic `/new` opened is named after its first message). */
  onMessage?: (message: InboundMessage) => Promise<void>,
): UpdateHandler {
  const sanitized = sanitizingSink(sink);
  return async (value) => {
    const checked = checkUpdate(value);
    if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
    if (checked.dropped.length > 0) logger.info({ updateId: checked.update.update_id, dropped: checked.dropped }, 'telegram update: fields of the wrong type dropped');
    const incoming = checked.update.message;
    if (incoming) sawMessage?.(incoming.chat.id, incoming.message_id);
    if (checked.update.callback_query) {
      await onCallbackQuery?.(checked.update.callback_query as CallbackQuery);
      return undefined;
    }
    if (checked.update.my_chat_member) {
      const change = membershipChangeOf(checked.update.my_chat_member, String(identity.botId), identity.botId);
      const outcome = change && onMembership ? await onMembership(change) : undefined;
      return outcome?.kind === 'rejected' ? outcome : undefined;
    }
    const topicChange = incoming ? topicChangeOf(incoming, String(identity.botId)) : undefined;
    if (topicChange) {
      const outcome = onMembership ? await onMembership(topicChange) : undefined;
      return outcome?.kind === 'rejected' ? outcome : undefined;
    }
    const message = normalizeUpdate(checked.update, identity);
    if (message === undefined) return undefined;
    const outcome = await sanitized(message);
    if (onMessage && outcome.kind !== 'rejected') void onMessage(message).catch((error: unknown) => logger.warn({ err: error }, 'telegram message follow-up failed'));
    return outcome;
  };
}
