import type { FeishuConfig } from '../../../src/config/app-config.js';
import type { Channel, ChannelState, InboundMessage, InboundOutcome, InboundSink, WebhookRoute } from '../../../src/core/index.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createFeishuChannel, type FeishuChannelOptions } from '../../../channels/feishu/index.js';
import type { FeishuDouble } from '../../doubles/feishu-double.js';

export const silentLogger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** ChannelState in process memory (the service backs it with Redis). */
export function memoryState(): ChannelState & { keys: Map<string, number> } {
  const keys = new Map<string, number>();
  return {
    keys,
    async has(key) {
      const expires = keys.get(key);
      return expires !== undefined && expires > Date.now();
    },
    async remember(key, ttlSeconds) {
      keys.set(key, Date.now() + ttlSeconds * 1000);
    },
  };
}

export type ChannelOverrides = Partial<FeishuConfig> & Omit<Partial<FeishuChannelOptions>, 'config'>;

/** A real Feishu channel (real Lark SDK) talking to the double. */
export function startChannel(double: FeishuDouble, overrides: ChannelOverrides = {}): Promise<Channel> {
  const { agentId, logger, state, liveReplies, liveEditIntervalMs, requestTimeoutMs, now, ...config } = overrides;
  return createFeishuChannel({
    config: {
      appId: double.appId,
      appSecret: double.appSecret,
      verificationToken: double.verificationToken,
      encryptKey: double.encryptKey,
      domain: double.domain,
      mode: 'webhook',
      ...config,
    },
    agentId: agentId ?? 'main',
    logger: logger ?? silentLogger,
    state: state ?? memoryState(),
    ...(liveReplies ? { liveReplies } : {}),
    ...(liveEditIntervalMs !== undefined ? { liveEditIntervalMs } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    ...(now !== undefined ? { now } : {}),
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

/** The sink that dedupes on `dedupeKey`, as the queue does. */
export function dedupingSink() {
  const seen = new Set<string>();
  return recordingSink((message) => {
    if (seen.has(message.dedupeKey)) return { kind: 'duplicate' };
    seen.add(message.dedupeKey);
    return { kind: 'queued', sessionKey: 's' };
  });
}

export function routeAt(channel: Channel, sink: InboundSink, path: string): WebhookRoute {
  const route = channel.webhookRoutes(sink).find((candidate) => candidate.path === path);
  if (route === undefined) throw new Error(`no route ${path}`);
  return route;
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The visible text of a post's or card's content (what a reader sees, markup aside). */
export function visibleText(msgType: string, content: any): string {
  if (msgType === 'text') return String(content.text);
  if (msgType === 'interactive') return content.body.elements.map((element: { content: string }) => element.content).join('\n');
  const body = content.zh_cn ?? Object.values(content)[0];
  return body.content
    .map((line: any[]) => line.map((element) => (element.tag === 'hr' ? '---' : String(element.text ?? ''))).join(''))
    .join('\n');
}
