import type { WebhookRequest, WebhookResponse, WebhookRoute } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { openEnvelope, type EnvelopeSecrets } from './envelope.js';
import type { MessageEventHandler } from './inbound-pipeline.js';
import { isMembershipEvent, type MembershipEventHandler } from './membership.js';

export const FEISHU_EVENTS_PATH = '/webhooks/feishu/events';
export const FEISHU_CARDS_PATH = '/webhooks/feishu/cards';
const MESSAGE_EVENT = 'im.message.receive_v1';

/**
 * `POST /webhooks/feishu/events`: verify and open the delivery, answer url_verification, hand a message
 * event to the inbound path and answer 200 once it is queued (Feishu wants an answer within 3 s and
 * redelivers on anything else, so a queue that refused the message answers 503, and a wrongly typed
 * event 400). The bot removed from or added to a group goes to `handleMembership` (503 when it was not
 * recorded). Other event types are acknowledged and dropped.
 */
export function createEventsRoute(options: {
  secrets: EnvelopeSecrets;
  handleMessage: MessageEventHandler;
  handleMembership?: MembershipEventHandler;
  logger: Logger;
  now?: () => number;
}): WebhookRoute {
  const { secrets, handleMessage, logger } = options;
  const envelopeOptions = options.now ? { now: options.now } : {};
  return {
    method: 'POST',
    path: FEISHU_EVENTS_PATH,
    async handle(request: WebhookRequest): Promise<WebhookResponse> {
      const opened = openEnvelope(request, secrets, envelopeOptions);
      switch (opened.kind) {
        case 'refused':
          logger.warn({ reason: opened.reason }, 'feishu event delivery refused');
          return { status: opened.status, body: { error: opened.reason } };
        case 'challenge':
          return { status: 200, body: { challenge: opened.challenge } };
        case 'event':
          break;
      }
      if (isMembershipEvent(opened.eventType) && options.handleMembership) {
        const outcome = await options.handleMembership(opened.eventType, opened.event).catch((error: unknown) => {
          logger.error({ eventId: opened.eventId, error }, 'feishu membership event handling failed');
          return { kind: 'rejected' as const, reason: 'handling failed' };
        });
        return outcome?.kind === 'rejected' ? { status: 503, body: { error: 'unavailable' } } : { status: 200, body: {} };
      }
      if (opened.eventType !== MESSAGE_EVENT) {
        logger.debug({ eventType: opened.eventType, eventId: opened.eventId }, 'feishu event ignored');
        return { status: 200, body: {} };
      }
      try {
        const outcome = await handleMessage(opened.event, opened.eventId);
        if (outcome?.kind === 'invalid') {
          logger.warn({ eventId: opened.eventId, reason: outcome.reason }, 'feishu message refused: wrongly typed fields');
          return { status: 400, body: { error: `wrongly typed fields: ${outcome.reason}` } };
        }
        if (outcome?.kind === 'rejected') {
          logger.warn({ eventId: opened.eventId, reason: outcome.reason }, 'feishu message not accepted, asking Feishu to redeliver');
          return { status: 503, body: { error: 'unavailable' } };
        }
      } catch (error) {
        logger.error({ eventId: opened.eventId, error }, 'feishu message handling failed');
        return { status: 503, body: { error: 'unavailable' } };
      }
      return { status: 200, body: {} };
    },
  };
}

/**
 * `POST /webhooks/feishu/cards`: card action callbacks (approval buttons), verified like events. The answer's
 * toast tells the clicker what happened; anything else verified is acknowledged with `{}` (the card stays as
 * it is); url_verification is answered.
 */
export function createCardsRoute(options: {
  secrets: EnvelopeSecrets;
  logger: Logger;
  now?: () => number;
  onCardAction?: (event: unknown) => Promise<object | undefined>;
}): WebhookRoute {
  const { secrets, logger } = options;
  const envelopeOptions = { legacyCardSignature: true, ...(options.now ? { now: options.now } : {}) };
  return {
    method: 'POST',
    path: FEISHU_CARDS_PATH,
    async handle(request: WebhookRequest): Promise<WebhookResponse> {
      const opened = openEnvelope(request, secrets, envelopeOptions);
      if (opened.kind === 'refused') {
        logger.warn({ reason: opened.reason }, 'feishu card callback refused');
        return { status: opened.status, body: { error: opened.reason } };
      }
      if (opened.kind === 'challenge') return { status: 200, body: { challenge: opened.challenge } };
      const answer = await options.onCardAction?.(opened.event).catch((error: unknown) => {
        logger.error({ err: error }, 'feishu card action failed');
        return undefined;
      });
      logger.debug({ eventType: opened.eventType, answered: answer !== undefined }, 'feishu card callback acknowledged');
      return { status: 200, body: answer ?? {} };
    },
  };
}
