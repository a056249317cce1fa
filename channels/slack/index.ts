import type { AssistantSettings, SlackConfig } from '../../src/config/app-config.js';
import { memoLast, BotError, type ApprovalSink, type Channel, type ChannelNotes, type ChannelState, type ChatMembershipSink, type InboundSink, type PlatformCallRecorder } from '../../src/core/index.js';
import { createAssistantThreads } from './assistant-threads.js';
import { describeScopes, missingScopes } from './app-permissions.js';
import { handleApprovalClick, isApprovalClick, sendApprovalPrompt, settleApprovalPrompt } from './approval-buttons.js';
import { handleCommandClick, isCommandClick, sendCommandButtons } from './command-buttons.js';
import type { Logger } from '../../src/observability/logger.js';
import { createChannelNames } from './channel-names.js';
import { slackErrorCode, toPlatformError } from './errors.js';
import { createSlackFiles } from './files.js';
import { createInboundDispatcher } from './inbound-dispatch.js';
import type { SlackIdentity } from './inbound.js';
import { openLiveReply } from './live-reply.js';
import { createOutbound } from './outbound.js';
import { slackPromptSection } from './prompt-section.js';
import { createSocketMode } from './socket-mode.js';
import { createThreadMemory } from './thread-memory.js';
import { startWorking } from './typing.js';
import { createWebClients } from './web-clients.js';
import { createSlackRoutes } from './webhook.js';

export { SLACK_COMMANDS_PATH, SLACK_EVENTS_PATH, SLACK_INTERACTIONS_PATH } from './webhook.js';

export interface SlackChannelOptions {
  /** Counts every Web API call (metrics). */
  onApiCall?: PlatformCallRecorder;
  config: SlackConfig;
  agentId: string;
  logger: Logger;
  /** Cross-process memory (Redis in the service): the threads the bot answered in, assistant thread contexts. */
  state: ChannelState & ChannelNotes;
  /** What a new assistant thread opens with (the account's agent's `assistant` settings); unset: the built-in greeting and prompts. */
  assistant?: AssistantSettings | undefined;
  /** Pause between live reply edits (tests shorten it). */
  liveEditIntervalMs?: number;
}

const REFUSED_TOKEN_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired']);

/** The Slack channel: asks Slack who the bot is (auth.test) once, then serves the Events API over HTTP or Socket Mode. */
export async function createSlackChannel(options: SlackChannelOptions): Promise<Channel> {
  const { config, agentId } = options;
  const logger = options.logger.child({ module: 'slack' });
  const clients = createWebClients(config, logger, options.onApiCall);
  let auth;
  try {
    auth = await clients.repeatable.auth.test();
  } catch (error) {
    const code = slackErrorCode(error);
    if (code !== undefined && REFUSED_TOKEN_ERRORS.has(code)) {
      throw new BotError('config', `SLACK_BOT_TOKEN was refused by Slack (${code})`, { cause: error });
    }
    throw toPlatformError(error, 'auth.test');
  }
  if (!auth.user_id || !auth.team_id) throw new BotError('platform', 'Slack auth.test answered without a user or team id');

  const identity: SlackIdentity = { botUserId: auth.user_id, teamId: auth.team_id, agentId };
  const grantedScopes = auth.response_metadata?.scopes;
  const lacking = grantedScopes ? missingScopes(grantedScopes).map((scope) => scope.name) : [];
  if (lacking.length > 0) {
    logger.warn({ accountId: identity.teamId, missing: lacking }, 'slack app lacks scopes the service uses (run doctor; see docs/slack-app-manifest.yaml)');
  }
  const threads = createThreadMemory(options.state, identity.teamId, logger);
  const outbound = createOutbound(clients, threads, logger);
  // uploads are not idempotent (completeUploadExternal posts the message): the client without retries
  const files = createSlackFiles(clients, config.botToken, config.apiUrl);
  let membershipSink: ChatMembershipSink | undefined;
  const channelName = createChannelNames(clients.repeatable, logger);
  const assistant = createAssistantThreads({ clients, outbound, notes: options.state, teamId: identity.teamId, settings: options.assistant, channelName, logger });
  const dispatcher = createInboundDispatcher({
    identity,
    lookups: { isBotThread: threads.isBotThread, channelName, assistantContextNote: assistant.contextNote },
    logger,
    onMembership: async (change) => (membershipSink ? membershipSink(change) : { kind: 'recorded' }),
    assistant,
  });
  let approvalSink: ApprovalSink | undefined;
  const onInteraction = async (payload: { type: string; actions?: unknown }, sink: InboundSink) => {
    if (isApprovalClick(payload)) await handleApprovalClick(clients, payload, approvalSink, logger);
    else if (isCommandClick(payload)) await handleCommandClick(payload, identity, sink, logger);
  };
  const socketMode = config.appToken ? createSocketMode({ appToken: config.appToken, apiUrl: config.apiUrl, dispatcher, onInteraction, logger }) : undefined;
  logger.info({ accountId: identity.teamId, botUserId: identity.botUserId, mode: socketMode ? 'socket' : 'http' }, 'slack channel ready');

  const promptSection = memoLast(slackPromptSection);
  return {
    name: 'slack',
    accountId: identity.teamId,
    inboundConnection: socketMode !== undefined,
    webhookRoutes(sink) {
      if (socketMode) return [];
      return createSlackRoutes({ signingSecret: config.signingSecret, dispatcher, sink, onInteraction, logger });
    },
    async startInbound(sink) {
      await socketMode?.start(sink);
    },
    async stopInbound() {
      await socketMode?.stop();
      await assistant.settled();
    },
    send: (to, markdown, progress) => outbound.send(to, markdown, progress),
    sendNotice: (to, text, progress) => outbound.sendNotice(to, text, progress),
    startWorking: (to) => startWorking(clients, to, logger),
    setConversationTitle: (to, title) => assistant.setTitle(to, title),
    openLiveReply: (to, liveOptions) => openLiveReply({ clients, outbound, logger, ...(options.liveEditIntervalMs ? { intervalMs: options.liveEditIntervalMs } : {}) }, to, liveOptions),
    promptSection: () => promptSection(identity.botUserId),
    sendApprovalPrompt: (to, prompt, progress) => sendApprovalPrompt(clients, to, prompt, logger, progress),
    settleApprovalPrompt: (to, messageId, prompt, outcome) => settleApprovalPrompt(clients, to, messageId, prompt, outcome),
    sendCommandButtons: (to, text, buttons) => sendCommandButtons(clients, to, text, buttons),
    onApprovalAnswer(sink) {
      approvalSink = sink;
    },
    onChatMembership(sink) {
      membershipSink = sink;
    },
    onDirectAccessCheck(check) {
      assistant.setGreetingCheck(check);
    },
    downloadAttachment: (attachment, options) => files.download(attachment, options),
    sendFile: (to, file, progress) => files.send(to, file, progress),
    describeSetup: () => describeScopes(grantedScopes),
  };
}
