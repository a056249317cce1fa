import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { createAccountChannels } from '../channels/index.js';
import { createAccessControl, PairingService, UserRateLimiter } from './access/index.js';
import { AgentRuntimes } from './agent-runtimes.js';
import { createApprovalAnswerHandler, denyAsOperator, stopWaitingTurn } from './approvals/index.js';
import { holdConnection } from './gateway/connection-leader.js';
import { LeaderLease } from './queue/leader-lease.js';
import { createCommandHandler } from './commands/index.js';
import type { AppConfig } from './config/app-config.js';
import { ChatSettingsResolver, type ChatLocation } from './config/chat-settings.js';
import type { InboundMessage } from './core/inbound-message.js';
import { BudgetLedger, BudgetSettings, BudgetsOverview, createUsageReport, TurnBudgets } from './budgets/index.js';
import { priceTableOf } from './llm/pricing.js';
import { modelKey, RedisFailoverCooldowns, type FailoverOptions } from './llm/index.js';
import { ChannelRegistry } from './core/channel-registry.js';
import { AdminLoginGuard, createChatMembershipHandler, createHttpServer, createInboundHandler, RedisLoginFailures, registerAdminScope } from './gateway/index.js';
import { connectionName, createServiceStatus } from './gateway/service-status.js';
import type { InboundSink } from './core/channel.js';
import type { McpToolSource } from './mcp/index.js';
import { createMediaCache, createMediaProcessor, createTranscriber, MEDIA_CACHE_MAX_AGE_MS } from './media/index.js';
import { acquireDataDirLock } from './lifecycle/data-dir-lock.js';
import { settleBefore, stopBudget, StopSteps, type StopBudget } from './lifecycle/stop-steps.js';
import { moduleLogger } from './observability/logger.js';
import { Metrics, statementKind } from './observability/metrics.js';
import {
  AbortBus,
  AlbumMarks,
  ChannelActivity,
  GroupContext,
  InboundDedupe,
  InboundQueue,
  RedisChannelState,
  RedisConnections,
  SessionLock,
  SessionScheduler,
  startEmbeddedRedis,
  stopSessions,
  ApprovalRecords,
  TurnCheckpoints,
  TurnWorker,
  waitUntilReady,
  type EmbeddedRedis,
} from './queue/index.js';
import { databaseOptionsOf, migrateDatabase, openDatabase, resetSession, sessionStats, type Database } from './store/index.js';
import { createCompactor } from './turn/compaction.js';
import { TokenCalibration } from './agent/index.js';
import { sessionUsageOf } from './commands/session-usage.js';
import { createTurnAbandoner } from './turn/abandon-turn.js';
import { turnCheckpointStore } from './turn/checkpoint-store.js';
import { createTurnRunner } from './turn/run-turn.js';
import type { TurnDependencies } from './turn/turn-dependencies.js';
import { DeliveryRecords } from './turn/delivery-records.js';
import { DeliveryStore } from './queue/delivery-store.js';
import { WorkerLiveness } from './queue/worker-liveness.js';
import { FileSendRecords } from './turn/file-sends.js';
import { createTurnStore } from './turn/store-adapter.js';
import { createFiringOutcomeRecorder, createScheduleTools, FiringWorker, ScheduleQueue, ScheduleService, tasksCommand } from './schedules/index.js';
import { createMemoryFlush, createMemoryTools, createOpenAiEmbedder, forgetCommand, memoryCommand, MemoryService } from './memory/index.js';

export { DEFAULT_AGENT_ID } from './config/merge-agents.js';

export interface RunningService {
  /** The HTTP port actually bound (PORT=0 picks a free one). */
  port: number;
  /** Stops everything within SHUTDOWN_GRACE_MS (see `stopBudget`); rejects when some part did not stop in time. */
  stop(): Promise<void>;
}

/** The composition root: builds what the role needs, starts it, and knows how to stop it in order. */
export async function startService(config: AppConfig): Promise<RunningService> {
  const logger = moduleLogger('app');
  const steps = new StopSteps(logger);
  const onStop = (name: string, stop: (budget: StopBudget) => Promise<unknown>) => steps.add(name, stop);
  const connections = new RedisConnections();
  /** A step that needs Redis is not waited for once Redis is found away during the stop. */
  const unlessRedisLost = (name: string, stop: (budget: StopBudget) => Promise<unknown>) =>
    onStop(name, (budget) => connections.unlessLost(stop(budget), () => logger.warn({ step: name }, 'Redis is away: not waiting for this part to stop')));
  const stopAll = async () => {
    // from here on a Redis that is away is given up on rather than waited for
    connections.giveUpWhenAway();
    await steps.run(stopBudget(config.shutdownGraceMs));
  };
  try {
    // one process per data folder while it holds an embedded store (PGlite, or the redis-server's files)
    const lock = !config.databaseUrl || !config.redisUrl ? acquireDataDirLock(config.dataDir, 'start') : undefined;
    if (lock) onStop('data folder lock', async () => lock.release());
    let embedded: EmbeddedRedis | undefined;
    if (!config.redisUrl) {
      embedded = await startEmbeddedRedis(join(config.dataDir, 'redis'), {
        avoidPorts: [config.port],
        onUnexpectedExit: (code, signal) => logger.error({ code, signal }, 'the embedded redis-server exited; Redis is away until the service is restarted'),
      });
      // stopped last, after the turns have drained and every connection to it is closed
      onStop('embedded redis', (budget) => embedded!.stop(Math.max(500, budget.deadline - Date.now())));
      logger.info({ url: embedded.url, pid: embedded.pid }, 'REDIS_URL unset: started redis-server from PATH');
    }
    const redisUrl = config.redisUrl ?? embedded!.url;
    const metrics = new Metrics();
    const database = await openDatabase({
      ...databaseOptionsOf(config),
      onQuery: (statement) => metrics.databaseStatements.inc({ kind: statementKind(statement) }),
    });
    onStop('database', () => database.close());
    await migrateDatabase(database);

    const runsGateway = config.role !== 'worker';
    const runsWorker = config.role !== 'gateway';
    const track = (name: string, redis: Redis): Redis => {
      onStop(name, () => connections.close(redis));
      return redis;
    };
    const redis = track('redis', connections.create(redisUrl, runsGateway ? 'producer' : 'worker'));
    await waitUntilReady(redis);
    const chats = new ChatSettingsResolver(config);
    const schedulerOptions = {
      prefix: config.queuePrefix,
      groupMaxConcurrent: config.groupMaxConcurrent,
      mode: config.queueMode,
      // per session: channel, account and group overrides of the config file
      modeFor: (sessionKey: string) => chats.forSessionKey(sessionKey)?.queueMode ?? config.queueMode,
      leaseMs: config.turnLeaseMs,
      debounceMs: config.inboundDebounceMs,
      albumWaitMs: config.media.groupWaitMs,
    };
    const scheduler = new SessionScheduler(redis, schedulerOptions);
    const abortChannel = `${config.queuePrefix}:abort`;
    const publisherBus = new AbortBus(abortChannel, redis, undefined, logger);
    const inbound = new InboundQueue(redis, config.queuePrefix, scheduler, publisherBus, moduleLogger('queue'));
    unlessRedisLost('inbound queue', () => inbound.close());
    const groupContext = new GroupContext(redis, config.queuePrefix);
    const approvals = new ApprovalRecords(redis, config.queuePrefix);
    metrics.sampleQueuesWith(async () => {
      const counts = await inbound.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
      return Object.entries(counts).map(([state, count]) => ({ queue: inbound.queue.name, state, count }));
    });

    const memory = new MemoryService(database.db, moduleLogger('memory'));
    if (config.embedding) await memory.enableEmbeddings(createOpenAiEmbedder(config.embedding));
    const scheduleQueue = new ScheduleQueue(redis, config.queuePrefix);
    unlessRedisLost('schedule queue', () => scheduleQueue.close());
    const schedules = new ScheduleService(database.db, scheduleQueue, config.schedules, moduleLogger('schedules'));
    const channels = new ChannelRegistry();
    const channelState = new RedisChannelState(redis, config.queuePrefix);
    const recordPlatformCall = (platform: string) => (_method: string, result: string) => metrics.platformCalls.inc({ channel: platform, result });
    for (const account of await createAccountChannels(config, moduleLogger('channels'), channelState, recordPlatformCall)) {
      channels.add(account.channel);
      chats.registerAccount(account.platform, account.channel.accountId, account.accountName);
    }

    const budgetLevelsFor = (message: InboundMessage) => [
      (config.agents.find((agent) => agent.id === message.agentId) ?? config.agents[0]!).budgets,
      chats.resolve(chatLocationOf(message)).budgets,
    ];
    const budgetOptions = { defaults: config.budgets, levelsFor: budgetLevelsFor, prices: config.llmPrices, metrics, logger: moduleLogger('budgets') };

    if (runsWorker) {
      const workerRedis = track('worker redis', connections.create(redisUrl, 'worker'));
      const subscriber = track('abort subscriber', connections.create(redisUrl, 'subscriber'));
      let turnWorker: TurnWorker | undefined;
      const liveness = new WorkerLiveness(workerRedis, {
        prefix: config.queuePrefix,
        deadAfterMs: config.workerDeadAfterMs,
        onDead: async (workerIds) => turnWorker?.takeOverFrom(workerIds),
        logger: moduleLogger('liveness'),
      });
      const workerScheduler = new SessionScheduler(workerRedis, { ...schedulerOptions, workerId: liveness.workerId });
      const abortBus = new AbortBus(abortChannel, workerRedis, subscriber, moduleLogger('abort'));
      await abortBus.listen();
      let mcp: McpToolSource | undefined;
      if (config.agents.some((agent) => agent.mcpServers.length > 0)) {
        // the MCP SDK loads only when a server is configured; servers connect in the background,
        // and are stopped after the workers (registered before them)
        const { McpManager } = await import('./mcp/index.js');
        const manager = new McpManager(config.agents, { logger: moduleLogger('mcp'), metrics });
        manager.start();
        onStop('mcp servers', () => manager.close());
        mcp = manager;
      }
      const agents = new AgentRuntimes(
        config,
        chats,
        moduleLogger('agents'),
        mcp,
        [...createMemoryTools(memory), ...createScheduleTools(schedules)],
        failoverOptions(new RedisFailoverCooldowns(workerRedis, config.queuePrefix), config.failoverCooldownMs, metrics),
      );
      const budgets = new TurnBudgets({
        ...budgetOptions,
        ledger: new BudgetLedger(workerRedis, config.queuePrefix),
        settings: new BudgetSettings(workerRedis, config.queuePrefix),
      });
      const compactor = createCompactor({
        db: database.db,
        model: agents.defaultModel,
        modelFor: (sessionKey) => agents.modelForSession(sessionKey),
        lock: new SessionLock(workerRedis, config.queuePrefix),
        logger: moduleLogger('compaction'),
        flushMemory: createMemoryFlush(memory, moduleLogger('memory')),
        timeoutMs: config.compactionTimeoutMs,
        prices: priceTableOf(config.llmPrices),
        // summaries and memory flushes are model calls like any other: charged to whoever caused them
        chargedModel: (model, message) => budgets.guard(model, message),
      });
      const deliveryLogger = moduleLogger('delivery');
      const deliveries = new DeliveryRecords(new DeliveryStore(workerRedis, config.queuePrefix), (channel, resolution) => {
        metrics.deliveriesInDoubt.inc({ channel, resolution });
        deliveryLogger.warn({ channel, resolution }, 'a part a dead or failed attempt may have sent was settled');
      });
      const turnDependencies: TurnDependencies = {
        store: createTurnStore(database.db),
        channels,
        model: agents.defaultModel,
        compactor,
        tools: agents.runtime(config.agents[0]!.id).tools,
        agentFor: (message) => agents.turnAgent(message),
        subagents: {
          ...config.subagents,
          agentNames: agents.agentNames,
          agentFor: (name, callingAgentId) => agents.subagentSetup(name, callingAgentId),
        },
        groupContext: new GroupContext(workerRedis, config.queuePrefix),
        deliveries,
        fileSends: new FileSendRecords(deliveries),
        checkpoints: turnCheckpointStore(new TurnCheckpoints(workerRedis, config.queuePrefix)),
        approvals: new ApprovalRecords(workerRedis, config.queuePrefix),
        calibration: new TokenCalibration(),
        settings: {
          systemPrompt: config.systemPrompt,
          maxIterations: config.maxIterations,
          historyTurns: config.historyTurns,
          inputGuard: config.inputGuard,
          traceVerbose: config.traceVerbose,
          dataDir: config.dataDir,
          liveReplies: config.llm.stream ? 'dm' : 'off',
          approvalTimeoutMs: config.approvalTimeoutMs,
          llmPrices: config.llmPrices,
        },
        budgets,
        logger: moduleLogger('turn'),
        metrics,
        afterTurn: createFiringOutcomeRecorder({ db: database.db, schedules: scheduleQueue, logger: moduleLogger('schedules'), metrics }),
        memoryLines: (message, query) => memory.promptLines(memory.scopeOf(message.conversation, message.sender.id), query),
        media: createMediaProcessor({
          config: config.media,
          transcriber: config.media.transcribe ? createTranscriber(config.media.transcribe, config.llmPrices) : undefined,
          cache:
            config.media.cacheMaxBytes > 0
              ? createMediaCache({ directory: join(config.dataDir, 'media-cache'), maxBytes: config.media.cacheMaxBytes, maxAgeMs: MEDIA_CACHE_MAX_AGE_MS, logger: moduleLogger('media') })
              : undefined,
          logger: moduleLogger('media'),
          metrics,
        }),
      };
      const worker = new TurnWorker({
        liveness,
        connection: workerRedis,
        prefix: config.queuePrefix,
        concurrency: config.workerConcurrency,
        leaseMs: config.turnLeaseMs,
        scheduler: workerScheduler,
        inbound,
        abortBus,
        runTurn: createTurnRunner(turnDependencies),
        abandonTurn: createTurnAbandoner(turnDependencies),
        runCompaction: (sessionKey, requestedBy) => compactor.compactFor(sessionKey, requestedBy ? { message: requestedBy } : undefined, { force: true }),
        metrics,
        logger: moduleLogger('worker'),
      });
      turnWorker = worker;
      worker.start();
      const firings = new FiringWorker({ connection: workerRedis, prefix: config.queuePrefix, db: database.db, schedules: scheduleQueue, inbound, logger: moduleLogger('schedules'), metrics });
      await firings.rearmMissing().catch((error: unknown) => logger.warn({ err: error }, 'could not check the scheduled tasks against Redis'));
      firings.start();
      unlessRedisLost('schedule firings', () => firings.close());
      unlessRedisLost('abort bus', () => abortBus.close());
      // a summary is an LLM call like a turn's, and gets the turns' time
      onStop('summaries in progress', (budget) => settleBefore(compactor.idle(), budget.turnsEndAt));
      onStop('workers', (budget) =>
        // a turn cannot finish without Redis: then they are all handed back at once (their jobs stay in Redis's files)
        connections.unlessLost(worker.close(Math.max(0, budget.turnsEndAt - Date.now())), () => {
          logger.warn('Redis is away: handing running turns back instead of waiting for them');
          abortBus.abortAll('shutdown');
        }),
      );
    }

    // button clicks (any gateway process) settle the request and hand the parked turn back to a worker
    const approvalAnswers = { records: approvals, scheduler, inbound, channels, logger: moduleLogger('approvals') };
    const answerApproval = createApprovalAnswerHandler(approvalAnswers);
    for (const channel of channels.all()) channel.onApprovalAnswer?.(answerApproval);
    const stopSession = (sessionKey: string) =>
      stopSessions({ scheduler, abortBus: publisherBus, inbound, stopWaitingTurn: (key, turnId) => stopWaitingTurn(approvalAnswers, key, turnId) }, sessionKey);
    // the platform says the bot left a chat (or came back): its tasks pause (resume) and its waiting work is dropped
    const membershipChanges = createChatMembershipHandler({
      schedules,
      stopSession,
      agentOf: (chat) => chats.resolve(chat).agentId,
      logger: moduleLogger('membership'),
      metrics,
    });
    for (const channel of channels.all()) channel.onChatMembership?.(membershipChanges);


    const budgetSettings = new BudgetSettings(redis, config.queuePrefix);
    const gatewayLedger = new BudgetLedger(redis, config.queuePrefix);
    const gatewayBudgets = new TurnBudgets({ ...budgetOptions, ledger: gatewayLedger, settings: budgetSettings });
    const agentConfigOf = (sessionKey: string) => config.agents.find((agent) => agent.id === sessionKey.split(':')[1]) ?? config.agents[0]!;
    // when each account last received an update, for the console (memory per message, a write every few seconds)
    const activity = new ChannelActivity(redis, config.queuePrefix, moduleLogger('channels'));
    const handleInbound = createInboundHandler({
      queue: inbound,
      groupContext,
      dedupe: new InboundDedupe(redis, config.queuePrefix),
      albums: new AlbumMarks(redis, config.queuePrefix),
      access: createAccessControl({
        dmPolicy: config.dmPolicy,
        allowFrom: config.allowFrom,
        groupAllowlist: config.groupAllowlist,
        pairing: config.dmPolicy === 'pairing' ? new PairingService(database.db, { metrics }) : undefined,
      }),
      chatSettings: (message) => chats.resolve(chatLocationOf(message)),
      rateLimiter: config.userRateLimit > 0 ? new UserRateLimiter(redis, { prefix: config.queuePrefix, limit: config.userRateLimit }) : undefined,
      notify: async (message, text) => {
        await channels.for(message.conversation).sendNotice(message.conversation, text);
      },
      logger: moduleLogger('inbound'),
      commands: createCommandHandler({
        stopSession,
        resetSession: async (sessionKey) => {
          await resetSession(database.db, sessionKey);
          await approvals.forgetSession(sessionKey);
        },
        requestCompaction: async (sessionKey, message) => {
          const stats = await sessionStats(database.db, sessionKey);
          if (!stats || stats.messageCount < 2) return 'nothing-to-compact';
          await inbound.addCompactionJob(sessionKey, message);
          return 'scheduled';
        },
        sessionUsage: async (sessionKey) => sessionUsageOf(await sessionStats(database.db, sessionKey), agentConfigOf(sessionKey).llm.provider),
        queueDepth: (sessionKey) => scheduler.depth(sessionKey),
        model: (sessionKey) => {
          const { llm } = agentConfigOf(sessionKey);
          return { provider: llm.provider, name: llm.model, contextWindow: llm.contextWindow };
        },
        reply: async (message, text) => {
          await channels.for(message.conversation).sendNotice(message.conversation, text);
        },
        usageReport: createUsageReport({ db: database.db, ledger: gatewayLedger, limitsFor: (message) => gatewayBudgets.limitsFor(message) }),
        tasks: (message, args) => tasksCommand(schedules, message, args),
        memory: { list: (message) => memoryCommand(memory, message), forget: (message, args) => forgetCommand(memory, message, args) },
      }),
    });
    const sink: InboundSink = (message) => {
      activity.received(message.conversation.channel, message.conversation.accountId);
      return handleInbound(message);
    };
    if (runsGateway) {
      activity.start();
      onStop('channel activity', async () => activity.stop());
    }

    const server = await createHttpServer({
      routes: runsGateway ? channels.all().flatMap((channel) => channel.webhookRoutes(sink)) : [],
      health: { redis: () => redis.ping(), postgres: () => database.ping() },
      logger: moduleLogger('gateway'),
      metrics,
      limits: config.http,
    });
    if (runsGateway && config.admin) {
      // bull-board, the console and their assets load only when the dashboard is on
      const [{ mountQueueDashboard }, { mountConsole }] = await Promise.all([import('./gateway/admin-dashboard.js'), import('./gateway/console/index.js')]);
      const admin = config.admin;
      // wrong passwords are counted per client address in Redis, across every gateway process
      const loginGuard = new AdminLoginGuard({ store: new RedisLoginFailures(redis, config.queuePrefix), logger: moduleLogger('admin'), metrics });
      await registerAdminScope(server, admin, async (scope) => {
        await mountQueueDashboard(scope, [inbound.queue], { readOnly: config.adminReadOnly, credentials: admin, publicUrl: config.publicUrl });
        await mountConsole(scope, {
          db: database.db,
          pairing: new PairingService(database.db, { metrics }),
          dmPolicy: config.dmPolicy,
          readOnly: config.adminReadOnly,
          credentials: admin,
          publicUrl: config.publicUrl,
          logger: moduleLogger('console'),
          budgets: new BudgetsOverview({ ledger: gatewayLedger, settings: budgetSettings, defaults: config.budgets, agents: config.agents }),
          status: createServiceStatus({ redis, prefix: config.queuePrefix, queues: [inbound.queue, scheduleQueue.queue], channels: channels.all(), activity }),
          schedules,
          approvals: {
            pending: (limit) => approvals.pending(limit),
            pendingCount: () => approvals.pendingCount(),
            deny: (approvalId, operator) => denyAsOperator(approvalAnswers, approvalId, operator),
          },
        });
      }, { loginGuard });
    }
    await server.listen({ port: config.port, host: config.host });
    onStop('http server', () => server.close());
    lock?.announce(localUrl(config.host, boundPort(server)));
    if (runsGateway) {
      for (const channel of channels.all()) {
        if (!channel.inboundConnection) {
          await channel.startInbound(sink);
          onStop(`${channel.name} inbound`, () => channel.stopInbound());
          continue;
        }
        const name = `${channel.name}:${channel.accountId}`;
        const held = await holdConnection({
          lease: LeaderLease.named(redis, config.queuePrefix, connectionName(channel), config.connectionLeaseMs),
          name,
          open: () => channel.startInbound(sink),
          close: () => channel.stopInbound(),
          logger: moduleLogger('connections'),
        });
        unlessRedisLost(`${channel.name} inbound`, () => held.stop());
      }
    }
    if (channels.all().length === 0) {
      logger.warn('no channel configured: set TELEGRAM_BOT_TOKEN (or SLACK_BOT_TOKEN / FEISHU_APP_ID) to talk to the bot');
    }
    const port = boundPort(server);
    logger.info(
      {
        role: config.role,
        port,
        channels: channels.all().map((channel) => `${channel.name}:${channel.accountId}`),
        agents: config.agents.map((agent) => agent.id),
        configFile: config.configFile,
      },
      'service started',
    );
    return { port, stop: stopAll };
  } catch (error) {
    await stopAll().catch((stopError: unknown) => logger.warn({ err: stopError }, 'could not undo the start completely'));
    throw error;
  }
}

/** Failover chains (CONTRACT §17): cool-downs in Redis, each failover counted and logged. */
function failoverOptions(cooldowns: FailoverOptions['cooldowns'], cooldownMs: number, metrics: Metrics): FailoverOptions {
  const logger = moduleLogger('failover');
  return {
    cooldowns,
    cooldownMs,
    onFailover: ({ from, to, reason, error }) => {
      metrics.llmFailovers.inc({ model: modelKey(from), reason });
      if (reason === 'cooldown') logger.debug({ from: modelKey(from), to: modelKey(to) }, 'model cooling down: the call goes to the next model');
      else logger.warn({ err: error, from: modelKey(from), to: modelKey(to), reason, cooldownMs }, 'model call failed: failing over to the next model');
    },
    onCooldownError: (error) => logger.warn({ err: error }, 'model cool-downs could not be read or written in Redis; trying the chain in order'),
  };
}

/** How a process on this machine reaches the server (a wildcard HOST listens on loopback too). */
function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

function chatLocationOf({ conversation }: InboundMessage): ChatLocation {
  return { channel: conversation.channel, accountId: conversation.accountId, chatType: conversation.chatType, chatId: conversation.chatId };
}

function boundPort(server: FastifyInstance): number {
  const address = server.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

export type { Database };
