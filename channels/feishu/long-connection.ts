import type { WSClient } from '@larksuiteoapi/node-sdk';
import type { FeishuConfig } from '../../src/config/app-config.js';
import { BotError } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { loadLarkSdk } from './client.js';
import type { HttpInstance } from './http-instance.js';
import type { MessageEventHandler } from './inbound-pipeline.js';
import { MEMBERSHIP_EVENT_TYPES, type MembershipEventHandler } from './membership.js';
import { createSdkLogger, SDK_LOGGER_LEVEL } from './sdk-logger.js';

/** WSClient.start() silently does nothing for an app id of any other shape. */
const APP_ID_PATTERN = /^cli_[0-9a-fA-F]{16}$/;

export interface LongConnection {
  /**
   * `onCardAction`: card button clicks (`card.action.trigger`); what it returns is the callback's answer (a toast).
   * `onMembership`: the bot removed from or added to a group.
   */
  start(handleMessage: MessageEventHandler, onCardAction?: (event: unknown) => Promise<object | undefined>, onMembership?: MembershipEventHandler): Promise<void>;
  stop(): Promise<void>;
}

/**
 * FEISHU_MODE=websocket: the SDK's WSClient holds the long connection (endpoint from
 * `POST {domain}/callback/ws/endpoint`, protobuf frames, pings, reconnects) and hands each event to an
 * EventDispatcher, whose `im.message.receive_v1` handler feeds the same inbound path as the webhook.
 * Events on this connection are authenticated by the app secret, so the dispatcher skips the HTTP checks.
 * A handler that throws makes the SDK answer the frame with 500, and Feishu redelivers.
 */
export function createLongConnection(config: FeishuConfig, http: HttpInstance, logger: Logger): LongConnection {
  let client: WSClient | undefined;
  return {
    async start(handleMessage, onCardAction, onMembership) {
      if (!APP_ID_PATTERN.test(config.appId)) {
        throw new BotError('config', 'FEISHU_APP_ID must look like cli_ followed by 16 hex digits for FEISHU_MODE=websocket');
      }
      const { DefaultCache, EventDispatcher, WSClient } = await loadLarkSdk();
      const sdkLogger = createSdkLogger(logger);
      const dispatcher = new EventDispatcher({
        ...(config.encryptKey ? { encryptKey: config.encryptKey } : {}),
        ...(config.verificationToken ? { verificationToken: config.verificationToken } : {}),
        logger: sdkLogger,
        loggerLevel: SDK_LOGGER_LEVEL,
        cache: new DefaultCache(),
      }).register({
        'im.message.receive_v1': async (data) => {
          // the dispatcher hands 2.0 events flattened: header fields beside `sender` and `message`
          const outcome = await handleMessage({ sender: data.sender, message: data.message }, data.event_id);
          if (outcome?.kind === 'rejected') throw new Error(`message not accepted: ${outcome.reason}`);
          // acknowledged, as a redelivery would be just as wrong
          if (outcome?.kind === 'invalid') logger.warn({ eventId: data.event_id, reason: outcome.reason }, 'feishu event dropped: wrongly typed fields');
          return undefined;
        },
        'card.action.trigger': async (data: unknown) => (await onCardAction?.(data)) ?? {},
        // the bot removed from / added to a group: flattened like messages, `chat_id` beside the header fields
        ...Object.fromEntries(
          MEMBERSHIP_EVENT_TYPES.map((eventType) => [
            eventType,
            async (data: unknown) => {
              const outcome = await onMembership?.(eventType, data);
              if (outcome?.kind === 'rejected') throw new Error(`membership change not recorded: ${outcome.reason}`);
              return undefined;
            },
          ]),
        ),
      });
      client = new WSClient({
        appId: config.appId,
        appSecret: config.appSecret,
        domain: config.domain.replace(/\/+$/, ''),
        httpInstance: http,
        logger: sdkLogger,
        loggerLevel: SDK_LOGGER_LEVEL,
        autoReconnect: true,
        onReady: () => logger.info('feishu long connection ready'),
        onReconnected: () => logger.info('feishu long connection re-established'),
        onError: (error) => logger.error({ error: error.message }, 'feishu long connection gave up'),
      });
      // connects in the background; onReady reports the first successful handshake
      await client.start({ eventDispatcher: dispatcher });
    },
    async stop() {
      client?.close({ force: true });
      client = undefined;
    },
  };
}
