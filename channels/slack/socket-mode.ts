import type { SocketModeClient } from '@slack/socket-mode';
import type { InboundSink } from '../../src/core/index.js';
import { commonJsExports } from '../shared/index.js';
import type { Logger } from '../../src/observability/logger.js';
import type { InboundDispatcher } from './inbound-dispatch.js';
import { checkInteraction } from './payload-schemas.js';
import { toSlackLogger } from './sdk-logger.js';

/** What the Socket Mode client hands over for every envelope. */
interface SocketEnvelope {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  type: string;
  body?: unknown;
  retry_num?: number;
}

export interface SocketMode {
  start(sink: InboundSink): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Socket Mode (SLACK_APP_TOKEN): the same envelopes as over HTTP, on a WebSocket the SDK keeps open and
 * reconnects. Each envelope is acknowledged first (Slack redelivers after 3 s without one), then handled.
 */
export function createSocketMode(options: {
  appToken: string;
  apiUrl: string;
  dispatcher: InboundDispatcher;
  /** Button clicks (`interactive` envelopes). */
  onInteraction?: (payload: { type: string }, sink: InboundSink) => Promise<void>;
  logger: Logger;
}): SocketMode {
  const { dispatcher, logger } = options;
  let client: SocketModeClient | undefined;

  async function handle(envelope: SocketEnvelope, sink: InboundSink): Promise<void> {
    await envelope.ack();
    const body = envelope.body;
    if (typeof body !== 'object' || body === null) return;
    if (envelope.type === 'interactive') {
      const payload = checkInteraction(body);
      if (payload.ok) await options.onInteraction?.(payload.value, sink);
      else logger.warn({ reason: payload.reason }, 'slack interaction dropped: wrongly typed fields');
      return;
    }
    const outcome =
      envelope.type === 'events_api'
        ? await dispatcher.event(body, sink)
        : envelope.type === 'slash_commands'
          ? await dispatcher.command(body, sink)
          : undefined;
    // acknowledged already, so Slack will not redeliver: a refused message is lost, loudly
    if (outcome?.kind === 'rejected') logger.error({ type: envelope.type, reason: outcome.reason }, 'slack socket mode message not accepted');
    if (outcome?.kind === 'invalid') logger.warn({ type: envelope.type, reason: outcome.reason }, 'slack socket mode envelope dropped: wrongly typed fields');
  }

  return {
    async start(sink) {
      if (client !== undefined) return;
      // loaded in Socket Mode only: an HTTP deployment never holds the WebSocket client and its dependencies
      const { SocketModeClient } = commonJsExports<typeof import('@slack/socket-mode')>(await import('@slack/socket-mode'), 'SocketModeClient');
      if (client !== undefined) return;
      client = new SocketModeClient({ appToken: options.appToken, logger: toSlackLogger(logger), clientOptions: { slackApiUrl: options.apiUrl } });
      client.on('slack_event', (envelope: SocketEnvelope) => {
        handle(envelope, sink).catch((error: unknown) => logger.error({ err: error, type: envelope.type }, 'slack socket mode envelope failed'));
      });
      await client.start();
      logger.info('slack socket mode connected');
    },
    async stop() {
      const running = client;
      client = undefined;
      await running?.disconnect();
    },
  };
}
