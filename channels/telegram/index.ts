import { Api, Bot, GrammyError } from 'grammy';
import type { TelegramConfig } from '../../src/config/app-config.js';
import { memoLast, BotError, type ApprovalSink, type Channel, type ChatMembershipSink, type ConversationRef, type InboundSink, type PlatformCallRecorder, type SharedHighMarks } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { installApiLogging } from './api-logging.js';
import { answerCallbackQuery, sendApprovalPrompt, settleApprovalPrompt, type CallbackQuery } from './approval-buttons.js';
import { installRateLimitRetries, installRetries } from './api-retry.js';
import { registerCommands, type BotCommandDescription } from './commands-registration.js';
import { createEditPacer } from './edit-pacer.js';
import { toPlatformError } from './errors.js';
import type { BotIdentity } from './inbound.js';
import { installThreadFallback } from './thread-fallback.js';
import { topicRefusedChange } from './topic-events.js';
import { openConversationTopic } from './conversation-topic.js';
import { createTopicNaming } from './topic-naming.js';
import { createPreviewApi, LIVE_EDIT_INTERVAL_MS, openLiveReply } from './live-reply.js';
import { createTelegramFiles } from './files.js';
import { createMessageIdWatermark } from './message-ids.js';
import { createOutbound } from './outbound.js';
import { createSentProbe } from './sent-probe.js';
import { shareWatermark } from './shared-watermark.js';
import { createPolling } from './polling.js';
import { telegramPromptSection } from './prompt-section.js';
import { startTyping } from './typing.js';
import { createUpdateHandler } from './update-handler.js';
import { createWebhookRoute } from './webhook.js';
import { registerWebhook } from './webhook-registration.js';
import { apiClientOptions } from './api-client-options.js';

export type { BotCommandDescription } from './commands-registration.js';
export { TELEGRAM_WEBHOOK_PATH } from './webhook.js';

export interface TelegramChannelOptions {
  config: TelegramConfig;
  agentId: string;
  logger: Logger;
  /** The bot's command menu; registered at start only when it changed. */
  commandNames?: BotCommandDescription[];
  /** PUBLIC_URL: in webhook mode the webhook is registered at `${publicUrl}/webhooks/telegram`. */
  publicUrl?: string;
  /** How often the typing indicator is renewed (tests shorten it). */
  typingIntervalMs?: number;
  /** Minimum time between two live edits in one chat (tests shorten it). */
  liveEditIntervalMs?: number;
  /** Counts every Bot API call (metrics). */
  onApiCall?: PlatformCallRecorder;
  /** Where processes share the highest message id each has seen (a takeover's probe reads it); unset: this process's only. */
  marks?: SharedHighMarks;
}

/** The Telegram channel: asks Telegram who the bot is (getMe) once, then serves webhook or long polling. */
export async function createTelegramChannel(options: TelegramChannelOptions): Promise<Channel> {
  const { config, agentId } = options;
  const logger = options.logger.child({ module: 'telegram' });
  const apiRoot = config.apiRoot.replace(/\/+$/, '');
  const bot = new Bot(config.token, { client: apiClientOptions(apiRoot) });
  installApiLogging(bot.api, logger, options.onApiCall);
  let topicGoneSink: ChatMembershipSink | undefined;
  const onThreadRefused = (chatId: number | string, threadId: number, description: string): void => {
    // the answer already went to the main chat; pausing the topic's tasks must not hold it up
    void topicGoneSink?.(topicRefusedChange(String(bot.botInfo.id), chatId, threadId, description)).catch((error: unknown) => logger.warn({ err: error, chatId, threadId }, "could not pause a refused topic's scheduled tasks"));
  };
  installThreadFallback(bot.api, logger, onThreadRefused);
  installRetries(bot.api);
  try {
    await bot.init();
  } catch (error) {
    if (error instanceof GrammyError && error.error_code === 401) {
      throw new BotError('config', 'TELEGRAM_BOT_TOKEN was refused by Telegram (401 Unauthorized)', { cause: error });
    }
    throw toPlatformError(error, 'getMe');
  }

  const identity: BotIdentity = { botId: bot.botInfo.id, botUsername: bot.botInfo.username, agentId };
  const accountId = String(identity.botId);
  const watermark = createMessageIdWatermark();
  const shared = options.marks ? shareWatermark(watermark, options.marks, bot.botInfo.id, logger) : undefined;
  const probe = createSentProbe(bot.api, shared ?? { highest: (to) => watermark.highest(to) });
  // recorded parts are created without the network and 5xx retries (see installRateLimitRetries)
  const createApi = new Api(config.token, apiClientOptions(apiRoot));
  installApiLogging(createApi, logger, options.onApiCall);
  installThreadFallback(createApi, logger, onThreadRefused);
  installRateLimitRetries(createApi);
  const apis = { api: bot.api, createApi };
  const outbound = createOutbound(apis, logger, watermark, probe);
  const files = createTelegramFiles(apis, apiRoot, config.token, watermark, probe);
  const previewApi = createPreviewApi(config.token, apiRoot, logger, options.onApiCall);
  const pacer = createEditPacer(options.liveEditIntervalMs ?? LIVE_EDIT_INTERVAL_MS);
  const polling = config.mode === 'polling' ? createPolling(bot, logger) : undefined;
  let approvalSink: ApprovalSink | undefined;
  const onCallbackQuery = (query: CallbackQuery) => answerCallbackQuery(bot.api, query, approvalSink, logger);
  let membershipSink: ChatMembershipSink | undefined;
  const onMembership: ChatMembershipSink = async (change) => (membershipSink ? membershipSink(change) : { kind: 'recorded' });
  // users' messages take ids from the same counters as the bot's: seeing them keeps the published high mark close
  // to the counter even when every worker that sent the latest parts has died (the gateway publishes too)
  // threaded mode (topics in private chats) is @BotFather's setting, read from getMe at start
  const topicsForNew = config.newConversationTopic === true && bot.botInfo.has_topics_enabled === true;
  const naming = topicsForNew && options.marks ? createTopicNaming(bot.api, options.marks, bot.botInfo.id, logger) : undefined;
  const updateHandler = (sink: InboundSink) => createUpdateHandler(identity, sink, logger, onCallbackQuery, onMembership, watermark.sawInbound, naming?.sawMessage);
  logger.info({ accountId, username: identity.botUsername, mode: config.mode }, 'telegram channel ready');

  const promptSection = memoLast(telegramPromptSection);
  return {
    name: 'telegram',
    accountId,
    inboundConnection: polling !== undefined,
    webhookRoutes(sink) {
      if (config.mode !== 'webhook') return [];
      return [createWebhookRoute({ secret: config.webhookSecret, handleUpdate: updateHandler(sink), logger })];
    },
    async startInbound(sink) {
      if (polling) await polling.start(updateHandler(sink));
      else if (options.publicUrl) await registerWebhook(bot.api, options.publicUrl, config.webhookSecret, logger);
      if (options.commandNames) await registerCommands(bot.api, options.commandNames, logger);
    },
    async stopInbound() {
      await polling?.stop();
    },
    send: (to, markdown, progress) => outbound.send(to, markdown, progress),
    sendNotice: (to, text, progress) => outbound.sendNotice(to, text, progress),
    startWorking: (to) => startTyping(bot.api, to, logger, options.typingIntervalMs),
    // every chat can stream; the turn decides where it does (LLM_STREAM, DMs by default)
    openLiveReply: (to, liveOptions) => openLiveReply({ api: bot.api, previewApi, outbound, pacer, watermark, logger }, to, liveOptions),
    promptSection: () => promptSection(identity.botUsername),
    ...(topicsForNew ? { openConversation: (from: ConversationRef) => openConversationTopic(bot.api, from, logger, naming?.opened) } : {}),
    sendApprovalPrompt: (to, prompt, progress) => sendApprovalPrompt({ api: progress ? createApi : bot.api, watermark, probe }, to, prompt, progress),
    settleApprovalPrompt: (to, messageId, prompt, outcome) => settleApprovalPrompt(bot.api, to, messageId, prompt, outcome),
    onApprovalAnswer(sink) {
      approvalSink = sink;
    },
    onChatMembership(sink) {
      membershipSink = sink;
    },
    onTopicGone(sink) {
      topicGoneSink = sink;
    },
    downloadAttachment: (attachment, options) => files.download(attachment, options),
    sendFile: (to, file, progress) => files.send(to, file, progress),
  };
}
