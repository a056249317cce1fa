import type { ChatMembershipSink, InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { sanitizingSink, type BoundaryOutcome } from '../shared/index.js';
import type { AssistantThreads } from './assistant-threads.js';
import { normalizeEvent, normalizeSlashCommand, readsMessage, type InboundLookups, type SlackIdentity } from './inbound.js';
import { membershipChangeOf } from './membership.js';
import { checkEventCallback, checkSlashCommand } from './payload-schemas.js';
import { RecentDeliveries } from './recent-deliveries.js';

/**
 * The one path both transports (HTTP and Socket Mode) end in: check the payload, normalize, sanitize,
 * then the sink, once per message. Bodies come as received: an `event_callback` envelope, a slash
 * command's fields.
 */
export interface InboundDispatcher {
  /** undefined: nothing for the sink (not a message the bot reads); `invalid`: wrongly typed fields. */
  event(body: unknown, sink: InboundSink): Promise<BoundaryOutcome | undefined>;
  command(fields: unknown, sink: InboundSink): Promise<BoundaryOutcome | undefined>;
}

export function createInboundDispatcher(options: {
  identity: SlackIdentity;
  lookups: InboundLookups;
  logger: Logger;
  /** The bot removed from (or added to) a channel, or the app uninstalled. */
  onMembership?: ChatMembershipSink;
  /** Assistant thread events (started, context changed). */
  assistant?: AssistantThreads;
}): InboundDispatcher {
  const { identity, lookups, logger } = options;
  const deliveries = new RecentDeliveries();
  const logDropped = (dropped: string[], context: object): void => {
    if (dropped.length > 0) logger.info({ ...context, dropped }, 'slack payload: fields of the wrong type dropped');
  };
  return {
    async event(body, sink) {
      const checked = checkEventCallback(body, readsMessage);
      if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
      const { eventId, event } = checked.value;
      logDropped(checked.dropped, { eventId });
      if (options.assistant?.handles(event.type)) {
        const outcome = await options.assistant.event(event);
        logger.debug({ eventId, eventType: event.type, outcome: outcome?.kind }, 'slack assistant thread event handled');
        return outcome;
      }
      const membership = membershipChangeOf(event, identity);
      if (membership) {
        const outcome = await options.onMembership?.(membership);
        logger.debug({ eventId, eventType: event.type, outcome: outcome?.kind }, 'slack membership event handled');
        return outcome?.kind === 'rejected' ? outcome : undefined;
      }
      const message = await normalizeEvent(event, identity, lookups);
      if (message === undefined) return undefined;
      const outcome = await deliveries.deliver(message.dedupeKey, () => sanitizingSink(sink)(message));
      logger.debug({ eventId, eventType: event.type, outcome: outcome.kind }, 'slack event handled');
      return outcome;
    },
    async command(fields, sink) {
      const checked = checkSlashCommand(fields);
      if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
      logDropped(checked.dropped, { command: checked.value.command });
      const message = normalizeSlashCommand(checked.value, identity);
      if (message === undefined) return undefined;
      return deliveries.deliver(message.dedupeKey, () => sanitizingSink(sink)(message));
    },
  };
}
