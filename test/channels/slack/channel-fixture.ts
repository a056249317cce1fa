import type { SlackConfig } from '../../../src/config/app-config.js';
import type { Channel, ChannelNotes, ChannelState, InboundMessage, InboundOutcome, InboundSink, WebhookRequest } from '../../../src/core/index.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createSlackChannel, type SlackChannelOptions } from '../../../channels/slack/index.js';
import type { SignedRequest, SlackDouble } from '../../doubles/slack-double.js';

export const silentLogger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The channel state the service keeps in Redis, in memory. */
export function memoryState(): ChannelState & ChannelNotes & { entries: Map<string, number>; texts: Map<string, string> } {
  const entries = new Map<string, number>();
  const texts = new Map<string, string>();
  const has = async (key: string) => (entries.get(key) ?? 0) > Date.now();
  return {
    entries,
    texts,
    has,
    async remember(key, ttlSeconds) {
      entries.set(key, Date.now() + ttlSeconds * 1000);
    },
    async keepText(key, text, ttlSeconds) {
      texts.set(key, text);
      entries.set(key, Date.now() + ttlSeconds * 1000);
    },
    async textOf(key) {
      return (await has(key)) ? texts.get(key) : undefined;
    },
    async claim(key, ttlSeconds) {
      if (await has(key)) return false;
      entries.set(key, Date.now() + ttlSeconds * 1000);
      return true;
    },
  };
}

/** A real Slack channel (real WebClient) talking to the double. */
export function startSlackChannel(
  double: SlackDouble,
  overrides: Partial<SlackConfig> & Partial<Omit<SlackChannelOptions, 'config'>> = {},
): Promise<Channel> {
  const { state, liveEditIntervalMs, agentId, logger, assistant, ...config } = overrides;
  return createSlackChannel({
    config: { botToken: double.botToken, signingSecret: double.signingSecret, appToken: undefined, apiUrl: double.apiUrl, ...config },
    agentId: agentId ?? 'main',
    logger: logger ?? silentLogger,
    state: state ?? memoryState(),
    ...(liveEditIntervalMs ? { liveEditIntervalMs } : {}),
    ...(assistant ? { assistant } : {}),
  });
}

/** A sink that records what it receives and answers with `outcome` (queued by default). */
export function recordingSink(outcome: (message: InboundMessage) => InboundOutcome | Promise<InboundOutcome> = () => ({ kind: 'queued', sessionKey: 's' })) {
  const received: InboundMessage[] = [];
  const sink: InboundSink = async (message) => {
    received.push(message);
    return outcome(message);
  };
  return { sink, received };
}

/** The route of `channel.webhookRoutes(sink)` that serves the signed request, called with it. */
export async function post(channel: Channel, sink: InboundSink, request: SignedRequest) {
  const route = channel.webhookRoutes(sink).find((candidate) => candidate.path === request.path);
  if (route === undefined) throw new Error(`no route for ${request.path}`);
  const webhookRequest: WebhookRequest = { headers: request.headers, rawBody: request.rawBody };
  return route.handle(webhookRequest);
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
