import type { InboundSink, WebhookRequest, WebhookResponse, WebhookRoute } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { headerOf, type BoundaryOutcome } from '../shared/index.js';
import type { InboundDispatcher } from './inbound-dispatch.js';
import { checkInteraction } from './payload-schemas.js';
import { isSignedBySlack } from './request-verification.js';

export const SLACK_EVENTS_PATH = '/webhooks/slack/events';
export const SLACK_COMMANDS_PATH = '/webhooks/slack/commands';
export const SLACK_INTERACTIONS_PATH = '/webhooks/slack/interactions';

const UNAUTHORIZED: WebhookResponse = { status: 401, body: { error: 'unauthorized' } };
const UNAVAILABLE: WebhookResponse = { status: 503, body: { error: 'unavailable' } };
const COMMAND_NOT_TAKEN = { response_type: 'ephemeral', text: 'Sorry, that did not go through. Please try again in a moment.' };

export interface SlackRouteOptions {
  signingSecret: string;
  dispatcher: InboundDispatcher;
  sink: InboundSink;
  /** Button clicks (block_actions); acknowledged within Slack's 3 s either way. */
  onInteraction?: (payload: { type: string }, sink: InboundSink) => Promise<void>;
  logger: Logger;
}

/** Slack wants the acknowledgement within 3 s: a click still being handled by then finishes after it. */
const INTERACTION_ACK_MS = 2_500;

/**
 * The Events API, slash command and interaction routes. Each verifies the signature first, hands the
 * message to the sink (which only enqueues) and answers; a refused message answers 503 so Slack retries,
 * a payload with wrongly typed fields 400 (retrying it would not make it right).
 */
export function createSlackRoutes(options: SlackRouteOptions): WebhookRoute[] {
  const { signingSecret, dispatcher, sink, logger } = options;
  if (!signingSecret) logger.error('SLACK_SIGNING_SECRET is not set: every Slack webhook call will be refused');
  const verified =
    (handle: (request: WebhookRequest) => Promise<WebhookResponse>) =>
    async (request: WebhookRequest): Promise<WebhookResponse> =>
      isSignedBySlack(request, signingSecret, logger) ? handle(request) : UNAUTHORIZED;

  async function outcomeOf(work: () => Promise<BoundaryOutcome | undefined>, context: object): Promise<BoundaryOutcome | undefined> {
    try {
      const outcome = await work();
      if (outcome?.kind === 'rejected') logger.warn({ ...context, reason: outcome.reason }, 'slack message not accepted');
      if (outcome?.kind === 'invalid') logger.warn({ ...context, reason: outcome.reason }, 'slack payload refused: wrongly typed fields');
      return outcome;
    } catch (error) {
      logger.error({ ...context, err: error }, 'slack message handling failed');
      return { kind: 'rejected', reason: 'handling failed' };
    }
  }

  return [
    {
      method: 'POST',
      path: SLACK_EVENTS_PATH,
      handle: verified(async (request) => {
        const body = parseObject(request.rawBody);
        if (body === undefined) return { status: 400, body: { error: 'malformed JSON' } };
        if (body.type === 'url_verification') return { status: 200, body: { challenge: String(body.challenge ?? '') } };
        if (body.type !== 'event_callback') return { status: 200 };
        if (!isObject(body.event)) return { status: 400, body: { error: 'event_callback without an event' } };
        const context = { eventId: body.event_id, retry: headerOf(request, 'x-slack-retry-num') };
        const outcome = await outcomeOf(() => dispatcher.event(body, sink), context);
        if (outcome?.kind === 'invalid') return invalid(outcome.reason);
        return outcome?.kind === 'rejected' ? UNAVAILABLE : { status: 200 };
      }),
    },
    {
      method: 'POST',
      path: SLACK_COMMANDS_PATH,
      handle: verified(async (request) => {
        const fields = Object.fromEntries(new URLSearchParams(request.rawBody));
        if (!fields.command || !fields.channel_id || !fields.user_id || !fields.trigger_id) return { status: 400, body: { error: 'not a slash command' } };
        const outcome = await outcomeOf(() => dispatcher.command(fields, sink), { command: fields.command });
        if (outcome?.kind === 'invalid') return invalid(outcome.reason);
        // Slack does not retry slash commands: the person is told instead
        return outcome?.kind === 'rejected' ? { status: 200, body: COMMAND_NOT_TAKEN } : { status: 200 };
      }),
    },
    {
      method: 'POST',
      path: SLACK_INTERACTIONS_PATH,
      handle: verified(async (request) => {
        const payload = checkInteraction(parseObject(new URLSearchParams(request.rawBody).get('payload') ?? ''));
        if (!payload.ok) return { status: 400, body: { error: `malformed payload: ${payload.reason}` } };
        if (!options.onInteraction) {
          logger.debug({ type: payload.value.type }, 'slack interaction ignored');
          return { status: 200 };
        }
        const handled = options.onInteraction(payload.value, sink).catch((error: unknown) => logger.error({ err: error, type: payload.value.type }, 'slack interaction failed'));
        await Promise.race([handled, new Promise((resolve) => setTimeout(resolve, INTERACTION_ACK_MS).unref())]);
        return { status: 200 };
      }),
    },
  ];
}

function invalid(reason: string): WebhookResponse {
  return { status: 400, body: { error: `wrongly typed fields: ${reason}` } };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
