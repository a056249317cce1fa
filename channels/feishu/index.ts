import type { FeishuConfig } from '../../src/config/app-config.js';
import { memoLast, type ApprovalSink, type Channel, type ChannelState, type ChatMembershipSink, type InboundSink, type PlatformCallRecorder } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { createFeishuClient, fetchBotIdentity } from './client.js';
import { createFeishuFiles } from './files.js';
import { createHttpInstance } from './http-instance.js';
import type { FeishuIdentity } from './inbound.js';
import { createChannelMemory, createMessageEventHandler } from './inbound-pipeline.js';
import { openLiveReply } from './live-reply.js';
import { createLongConnection } from './long-connection.js';
import { membershipChangeOf, type MembershipEventHandler } from './membership.js';
import { createMessagesApi } from './messages-api.js';
import { answerCardAction, sendApprovalPrompt, settleApprovalPrompt } from './approval-card.js';
import { answerCommandAction, isCommandAction, sendCommandButtons } from './command-card.js';
import { createOutbound } from './outbound.js';
import { feishuPromptSection } from './prompt-section.js';
import { startTypingReaction } from './typing.js';
import { createCardsRoute, createEventsRoute } from './webhook.js';

export { FEISHU_CARDS_PATH, FEISHU_EVENTS_PATH } from './webhook.js';

export interface FeishuChannelOptions {
  /** Counts every Open API call (metrics). */
  onApiCall?: PlatformCallRecorder;
  config: FeishuConfig;
  agentId: string;
  logger: Logger;
  /** Shared memory across processes: delivered event ids, ids of the bot's messages. */
  state: ChannelState;
  /** Where answers stream into a live card: DMs only (the default), every chat, or nowhere. */
  liveReplies?: 'dm' | 'all' | 'off';
  /** Minimum time between two edits of a live card (tests shorten it). */
  liveEditIntervalMs?: number;
  /** Timeout of one Open API request. */
  requestTimeoutMs?: number;
  /** The clock signed deliveries are checked against (epoch ms); tests inject one. */
  now?: () => number;
}

/**
 * The Feishu / Lark channel: an SDK client for FEISHU_DOMAIN, the bot's open_id learnt once at start
 * (`bot/v3/info`, which also fetches the first tenant token), then either the HTTP event subscription
 * (FEISHU_MODE=webhook) or the SDK's long connection (websocket). The account id is the app id.
 */
export async function createFeishuChannel(options: FeishuChannelOptions): Promise<Channel> {
  const { config, agentId } = options;
  const logger = options.logger.child({ module: 'feishu' });
  const http = createHttpInstance({
    ...(options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {}),
    ...(options.onApiCall ? { onApiCall: options.onApiCall } : {}),
  });
  const { bot, token } = await fetchBotIdentity(config, http, logger);
  const client = createFeishuClient(config, http, logger, token);
  const api = createMessagesApi(client, logger);

  const identity: FeishuIdentity = { appId: config.appId, botOpenId: bot.openId, botName: bot.name, agentId };
  const memory = createChannelMemory(options.state, config.appId, logger);
  const outbound = createOutbound(api, memory);
  const files = createFeishuFiles(client, outbound, logger);
  const longConnection = config.mode === 'websocket' ? createLongConnection(config, http, logger) : undefined;
  const secrets = { verificationToken: config.verificationToken, encryptKey: config.encryptKey };
  if (config.mode === 'webhook' && !secrets.verificationToken && !secrets.encryptKey) {
    logger.error('neither FEISHU_VERIFICATION_TOKEN nor FEISHU_ENCRYPT_KEY is set: every Feishu webhook delivery will be refused');
  }
  const handlerFor = (sink: InboundSink) => createMessageEventHandler({ identity, memory, sink, logger });
  const liveReplies = options.liveReplies ?? 'dm';
  let approvalSink: ApprovalSink | undefined;
  // a command button's click is that command from the one who clicked; any other card action is an approval's
  const onCardAction = (sink: InboundSink) => (event: unknown) =>
    isCommandAction(event) ? answerCommandAction(event, identity, sink, logger) : answerCardAction(event, approvalSink);
  let membershipSink: ChatMembershipSink | undefined;
  const handleMembership: MembershipEventHandler = async (eventType, event) => {
    const change = membershipChangeOf(eventType, event, config.appId);
    return change && membershipSink ? membershipSink(change) : undefined;
  };
  logger.info({ accountId: config.appId, botOpenId: bot.openId, mode: config.mode }, 'feishu channel ready');

  const promptSection = memoLast(feishuPromptSection);
  return {
    name: 'feishu',
    accountId: config.appId,
    inboundConnection: longConnection !== undefined,
    webhookRoutes(sink) {
      if (config.mode !== 'webhook') return [];
      const clock = options.now ? { now: options.now } : {};
      return [
        createEventsRoute({ secrets, handleMessage: handlerFor(sink), handleMembership, logger, ...clock }),
        createCardsRoute({ secrets, logger, onCardAction: onCardAction(sink), ...clock }),
      ];
    },
    async startInbound(sink) {
      await longConnection?.start(handlerFor(sink), onCardAction(sink), handleMembership);
    },
    async stopInbound() {
      await longConnection?.stop();
    },
    send: (to, markdown, progress) => outbound.send(to, markdown, progress),
    sendNotice: (to, text, progress) => outbound.sendNotice(to, text, progress),
    startWorking: (to) => startTypingReaction(api, to, logger),
    openLiveReply(to, live) {
      // a card an earlier holder left is settled whatever the chat's setting
      if (live?.adopt === undefined && (liveReplies === 'off' || (liveReplies === 'dm' && to.chatType !== 'dm'))) return undefined;
      return openLiveReply({ api, outbound, memory, to, logger, ...(live ? { live } : {}), ...(options.liveEditIntervalMs !== undefined ? { intervalMs: options.liveEditIntervalMs } : {}) });
    },
    promptSection: () => promptSection(bot.name),
    sendApprovalPrompt: (to, prompt, progress) => sendApprovalPrompt(outbound, to, prompt, progress),
    settleApprovalPrompt: (_to, messageId, prompt, outcome) => settleApprovalPrompt(api, messageId, prompt, outcome),
    sendCommandButtons: (to, text, buttons) => sendCommandButtons(outbound, to, text, buttons),
    onApprovalAnswer(sink) {
      approvalSink = sink;
    },
    onChatMembership(sink) {
      membershipSink = sink;
    },
    downloadAttachment: (attachment, options) => files.download(attachment, options),
    sendFile: (to, file, progress) => files.send(to, file, progress),
  };
}
