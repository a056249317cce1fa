import { createAccessControl, PairingService, UserRateLimiter } from '../access/index.js';
import { createApprovalAnswerHandler, stopWaitingTurn, type ApprovalAnswerDependencies } from '../approvals/index.js';
import { createUsageReport, sessionUsageOf } from '../usage/index.js';
import { createCommandHandler, mcpStatusLine } from '../commands/index.js';
import type { InboundSink } from '../core/channel.js';
import { contextKeyOf } from '../core/session-key.js';
import { createChatMembershipHandler, createInboundHandler } from '../gateway/index.js';
import { forgetCommand, memoryCommand } from '../memory/index.js';
import { moduleLogger } from '../observability/logger.js';
import { stopSessions } from '../queue/index.js';
import { AlbumMarks, ChannelActivity, McpStatusBoard } from '../redis/index.js';
import { tasksCommand } from '../schedules/index.js';
import { sessionStats, storedConversation } from '../store/index.js';
import type { Infrastructure } from './infrastructure.js';
import { createModelChoices } from './model-choices.js';
import { chatLocationOf, type SharedServices } from './shared-services.js';

/** What the gateway built: the sink every transport ends in, and the parts the console shows. */
export interface Gateway {
  sink: InboundSink;
  activity: ChannelActivity;
  approvalAnswers: ApprovalAnswerDependencies;
}

/**
 * The gateway: every transport's messages through access control, commands (answered now) and the rate limit into
 * the session queue; approval buttons; the platform's membership changes. On the process's shared connection,
 * which fails fast: a webhook answers 503 when Redis is away and the platform delivers again.
 */
export function buildGateway(infra: Infrastructure, shared: SharedServices): Gateway {
  const { config, keys, redis, database, metrics } = infra;
  const { channels, chats, sessions, schedules, memory } = shared;
  // button clicks (any gateway process) settle the request and hand the parked turn back to a worker
  const approvalAnswers: ApprovalAnswerDependencies = { records: shared.approvals, sessions, channels, logger: moduleLogger('approvals') };
  const answerApproval = createApprovalAnswerHandler(approvalAnswers);
  for (const channel of channels.all()) channel.onApprovalAnswer?.(answerApproval);
  const stopSession = (sessionKey: string) =>
    stopSessions({ sessions, abortBus: shared.abortPublisher, stopWaitingTurn: (key, turnId) => stopWaitingTurn(approvalAnswers, key, turnId) }, sessionKey);
  // the platform says the bot left a chat (or came back): its tasks pause (resume) and its waiting work is dropped
  const membershipChanges = createChatMembershipHandler({
    schedules,
    stopSession,
    agentOf: (chat) => chats.resolve(chat).agentId,
    logger: moduleLogger('membership'),
    metrics,
  });
  for (const channel of channels.all()) channel.onChatMembership?.(membershipChanges);

  const access = createAccessControl({
    dmPolicy: config.dmPolicy,
    allowFrom: config.allowFrom,
    groupAllowlist: config.groupAllowlist,
    pairing: config.dmPolicy === 'pairing' ? new PairingService(database.db, { metrics }) : undefined,
  });
  for (const channel of channels.all()) channel.onDirectAccessCheck?.((userId) => access.mayDirectMessage(channel.name, userId));

  const agentConfigOf = (sessionKey: string) => config.agents.find((agent) => agent.id === sessionKey.split(':')[1]) ?? config.agents[0]!;
  // the MCP servers live in the workers: /status reads what the workers beating now last reported
  const mcpBoard = config.agents.some((agent) => agent.mcpServers.length > 0) ? new McpStatusBoard(redis, keys, moduleLogger('mcp')) : undefined;
  const handleInbound = createInboundHandler({
    queue: shared.inbound,
    groupContext: shared.groupContext,
    dedupe: sessions,
    albums: new AlbumMarks(redis, keys),
    access,
    chatSettings: (message) => chats.resolve(chatLocationOf(message)),
    rateLimiter: config.userRateLimit > 0 ? new UserRateLimiter(redis, { keys, limit: config.userRateLimit }) : undefined,
    notify: async (message, text) => {
      await channels.for(message.conversation).sendNotice(message.conversation, text);
    },
    logger: moduleLogger('inbound'),
    commands: createCommandHandler({
      stopSession,
      resetSession: async (sessionKey, message) => {
        // in the session's own order (see redis/lua/new-conversation.lua): nothing is written to PostgreSQL here
        await sessions.newConversation(sessionKey, await storedConversation(database.db, sessionKey));
        const groupLines = message.conversation.chatType === 'group' ? shared.groupContext.forget(contextKeyOf(message)) : undefined;
        await Promise.all([shared.approvals.forgetSession(sessionKey), groupLines]);
      },
      openConversation: async (message) => channels.for(message.conversation).openConversation?.(message.conversation),
      requestCompaction: async (sessionKey, message) => {
        const stats = await sessionStats(database.db, sessionKey, await sessions.conversationOf(sessionKey));
        if (!stats || stats.messageCount < 2) return 'nothing-to-compact';
        await shared.inbound.addCompactionJob(sessionKey, message);
        return 'scheduled';
      },
      sessionUsage: async (sessionKey) =>
        sessionUsageOf(await sessionStats(database.db, sessionKey, await sessions.conversationOf(sessionKey)), agentConfigOf(sessionKey).llm.provider),
      queueDepth: async (sessionKey) => {
        const [depth, paused] = await Promise.all([sessions.depth(sessionKey), shared.turnsPause.isPaused()]);
        return { ...depth, paused };
      },
      model: (sessionKey) => {
        const { llm } = agentConfigOf(sessionKey);
        return { provider: llm.provider, name: llm.model, contextWindow: llm.contextWindow };
      },
      reply: async (message, text) => {
        await channels.for(message.conversation).sendNotice(message.conversation, text);
      },
      replyWithButtons: async (message, text, buttons) => {
        const channel = channels.for(message.conversation);
        if (channel.sendCommandButtons) await channel.sendCommandButtons(message.conversation, text, buttons);
        else await channel.sendNotice(message.conversation, text);
      },
      models: createModelChoices(config, database.db, sessions),
      usageReport: createUsageReport({ db: database.db, ledger: shared.budgetLedger, limitsFor: (message) => shared.budgets.limitsFor(message) }),
      tasks: (message, args) => tasksCommand(schedules, message, args),
      memory: { list: (message) => memoryCommand(memory, message), forget: (message, args) => forgetCommand(memory, message, args) },
      ...(mcpBoard
        ? { mcpStatus: async (sessionKey: string) => mcpStatusLine(agentConfigOf(sessionKey).mcpServers.map((server) => server.name), await mcpBoard.read(shared.roster.workers)) }
        : {}),
    }),
  });
  // when each account last received an update, for the console (memory per message, a write every few seconds)
  const activity = new ChannelActivity(redis, keys, moduleLogger('channels'));
  const sink: InboundSink = (message) => {
    activity.received(message.conversation.channel, message.conversation.accountId);
    return infra.activity.during(() => handleInbound(message));
  };
  return { sink, activity, approvalAnswers };
}
