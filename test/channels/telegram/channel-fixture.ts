import type { TelegramConfig } from '../../../src/config/app-config.js';
import type { Channel, InboundMessage, InboundOutcome, InboundSink } from '../../../src/core/index.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createTelegramChannel, type TelegramChannelOptions } from '../../../channels/telegram/index.js';
import type { TelegramDouble } from '../../doubles/telegram-double.js';

export const silentLogger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A real Telegram channel (real grammY) talking to the double. */
export function startChannel(
  double: TelegramDouble,
  overrides: Partial<TelegramConfig> & Omit<Partial<TelegramChannelOptions>, 'config'> = {},
): Promise<Channel> {
  const { commandNames, publicUrl, typingIntervalMs, liveEditIntervalMs, agentId, logger, marks, ...config } = overrides;
  return createTelegramChannel({
    config: { token: double.token, apiRoot: double.apiRoot, mode: 'polling', webhookSecret: undefined, ...config },
    agentId: agentId ?? 'main',
    logger: logger ?? silentLogger,
    ...(commandNames ? { commandNames } : {}),
    ...(publicUrl ? { publicUrl } : {}),
    ...(typingIntervalMs ? { typingIntervalMs } : {}),
    ...(liveEditIntervalMs ? { liveEditIntervalMs } : {}),
    ...(marks ? { marks } : {}),
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

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
