import type { InboundOutcome, InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { normalizeEvent, normalizeSlashCommand, type InboundLookups, type SlackIdentity, type SlackMessageEvent, type SlashCommandFields } from './inbound.js';
import { RecentDeliveries } from './recent-deliveries.js';

/** An Events API envelope (`event_callback`), as posted over HTTP or carried by a Socket Mode `events_api` frame. */
export interface EventCallback {
  type: 'event_callback';
  team_id?: string;
  event_id?: string;
  event?: SlackMessageEvent;
}

/** The one path both transports (HTTP and Socket Mode) end in: normalize, then the sink, once per message. */
export interface InboundDispatcher {
  /** undefined: nothing for the sink (not a message the bot reads). */
  event(body: EventCallback, sink: InboundSink): Promise<InboundOutcome | undefined>;
  command(fields: SlashCommandFields, sink: InboundSink): Promise<InboundOutcome | undefined>;
}

export function createInboundDispatcher(options: { identity: SlackIdentity; lookups: InboundLookups; logger: Logger }): InboundDispatcher {
  const { identity, lookups, logger } = options;
  const deliveries = new RecentDeliveries();
  return {
    async event(body, sink) {
      if (body.event === undefined) return undefined;
      const message = await normalizeEvent(body.event, identity, lookups);
      if (message === undefined) return undefined;
      const outcome = await deliveries.deliver(message.dedupeKey, () => sink(message));
      logger.debug({ eventId: body.event_id, eventType: body.event.type, outcome: outcome.kind }, 'slack event handled');
      return outcome;
    },
    async command(fields, sink) {
      const message = normalizeSlashCommand(fields, identity);
      if (message === undefined) return undefined;
      return deliveries.deliver(message.dedupeKey, () => sink(message));
    },
  };
}
