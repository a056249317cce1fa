import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { AgentRuntimes } from '../agent-runtimes.js';
import { TokenCalibration } from '../agent/index.js';
import type { TurnRunner } from '../core/turn-contract.js';
import { createTranscriber, modelKey, type FailoverOptions } from '../llm/index.js';
import { priceTableOf } from '../llm/pricing.js';
import type { McpToolSource } from '../mcp/index.js';
import { createMediaCache, createMediaProcessor, MEDIA_CACHE_MAX_AGE_MS } from '../media/index.js';
import { createMemoryFlush, createMemoryTools } from '../memory/index.js';
import { settleBefore } from '../lifecycle/stop-steps.js';
import { moduleLogger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { AbortBus, QueueWorker, startCompactionWorker } from '../queue/index.js';
import { ApprovalRecords } from '../approvals/index.js';
import { announceWorkerChange, GroupContext, McpStatusBoard, RedisFailoverCooldowns, SessionLock, SessionQueue, TurnStateStore, WorkerBeat } from '../redis/index.js';
import { createFiringOutcomeRecorder, createScheduleTools, FiringWorker } from '../schedules/index.js';
import { createTurnAbandoner } from '../turn/abandon-turn.js';
import { createFailingNotifier } from '../turn/failing-notice.js';
import { turnCheckpointStore } from '../turn/checkpoint-store.js';
import { createCompactor } from '../turn/compaction.js';
import { DeliveryRecords } from '../turn/delivery-records.js';
import { FileSendRecords } from '../turn/file-sends.js';
import { createTurnRunner } from '../turn/run-turn.js';
import { SessionCache } from '../turn/session-cache.js';
import { createTurnStore, HISTORY_LOAD_LIMIT } from '../turn/store-adapter.js';
import type { TurnDependencies } from '../turn/turn-dependencies.js';
import type { Infrastructure } from './infrastructure.js';
import { type SharedServices } from './shared-services.js';

/**
 * The worker: runs turns. Its connections (all waiting for Redis, never failing a turn for a blip): `worker redis`
 * for its commands, one blocking connection per queue shard, and the process's subscriber for /stop notices.
 */
export async function startWorkerRole(infra: Infrastructure, shared: SharedServices): Promise<void> {
  const { config, keys, metrics, logger } = infra;
  const workerRedis = infra.connection('worker redis', 'worker');
  const workerId = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const sessions = new SessionQueue(workerRedis, keys, shared.queueOptions);
  const beat = new WorkerBeat(workerRedis, keys, workerId, moduleLogger('liveness'), { intervalMs: Math.max(250, Math.floor(config.workerDeadAfterMs / 4)), ttlMs: config.workerDeadAfterMs }, (_worker, turns) =>
    metrics.turnsTakenOver.inc(turns),
  );
  await beat.start();
  // this worker counts from now on: sessions placed on it come to it from its first turn, in every process
  await shared.roster.refresh().catch(() => undefined);
  await announceWorkerChange(shared.invalidations);
  const abortBus = new AbortBus(keys.abortChannel, workerRedis, shared.subscriber, moduleLogger('abort'));
  await abortBus.listen();

  let mcp: McpToolSource | undefined;
  if (config.agents.some((agent) => agent.mcpServers.length > 0)) {
    // the MCP SDK loads only when a server is configured; servers connect in the background, and are stopped
    // after the workers (registered before them)
    const { McpManager } = await import('../mcp/index.js');
    // each server's state (connecting, connected, down) for the console, written when it changes
    const board = new McpStatusBoard(workerRedis, keys, moduleLogger('mcp'));
    const publish = (): void => void board.publish(workerId, manager.statuses());
    const manager = new McpManager(config.agents, { logger: moduleLogger('mcp'), metrics, startupWaitMs: config.mcpStartupWaitMs, onStatusChange: publish });
    manager.start();
    publish();
    infra.onStop('mcp servers', async () => {
      await manager.close();
      await board.remove(workerId);
    });
    mcp = manager;
  }
  const agents = new AgentRuntimes(
    config,
    shared.chats,
    moduleLogger('agents'),
    mcp,
    [...createMemoryTools(shared.memory), ...createScheduleTools(shared.schedules)],
    failoverOptions(new RedisFailoverCooldowns(workerRedis, keys), config.failoverCooldownMs, metrics),
  );
  const { budgets } = shared;
  const compactor = createCompactor({
    db: infra.database.db,
    model: agents.defaultModel,
    modelFor: (sessionKey) => agents.modelForSession(sessionKey),
    lock: new SessionLock(workerRedis, keys),
    historyChanged: (sessionKey) => sessions.historyChanged(sessionKey),
    logger: moduleLogger('compaction'),
    flushMemory: createMemoryFlush(shared.memory, moduleLogger('memory')),
    timeoutMs: config.compactionTimeoutMs,
    prices: priceTableOf(config.llmPrices),
    // summaries and memory flushes are model calls like any other: charged to whoever caused them
    chargedModel: (model, message) => budgets.guard(model, message),
  });
  const deliveryLogger = moduleLogger('delivery');
  const turnState = new TurnStateStore(workerRedis, keys);
  const deliveries = new DeliveryRecords(turnState, (channel, resolution, stream) => {
    metrics.deliveriesInDoubt.inc({ channel, resolution });
    deliveryLogger.warn({ channel, resolution, stream }, 'a part a dead or failed attempt may have sent was settled');
  });
  const store = createTurnStore(infra.database.db, { cache: new SessionCache(config.sessionCacheBytes, HISTORY_LOAD_LIMIT) });
  const turnDependencies: TurnDependencies = {
    store,
    channels: shared.channels,
    model: agents.defaultModel,
    compactor,
    tools: agents.runtime(config.agents[0]!.id).tools,
    agentFor: (message, signal) => agents.readyTurnAgent(message, signal),
    missingTool: (toolName, agentId) => agents.missingTool(toolName, agentId),
    subagents: {
      ...config.subagents,
      agentNames: agents.agentNames,
      agentFor: (name, callingAgentId) => agents.subagentSetup(name, callingAgentId),
    },
    groupContext: new GroupContext(workerRedis, keys),
    deliveries,
    fileSends: new FileSendRecords(deliveries),
    checkpoints: turnCheckpointStore(turnState),
    approvals: new ApprovalRecords(workerRedis, keys),
    calibration: new TokenCalibration(),
    settings: {
      systemPrompt: config.systemPrompt,
      maxIterations: config.maxIterations,
      historyTurns: config.historyTurns,
      inputGuard: config.inputGuard,
      traceVerbose: config.traceVerbose,
      typingDelayMs: config.typingDelayMs,
      dataDir: config.dataDir,
      liveReplies: config.llm.stream ? 'dm' : 'off',
      approvalTimeoutMs: config.approvalTimeoutMs,
      llmPrices: config.llmPrices,
    },
    budgets,
    logger: moduleLogger('turn'),
    metrics,
    afterTurn: createFiringOutcomeRecorder({ db: infra.database.db, schedules: shared.scheduleQueue, logger: moduleLogger('schedules'), metrics }),
    memoryLines: (message, query) => shared.memory.promptLines(shared.memory.scopeOf(message.conversation, message.sender.id), query),
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
  // the operator's pause of turns (the queue view's `turns` entry), read once a second, never per message
  let paused = await shared.turnsPause.isPaused().catch(() => false);
  const pausePoll = setInterval(() => {
    shared.turnsPause.isPaused().then(
      (value) => (paused = value),
      () => undefined,
    );
  }, 1_000);
  pausePoll.unref();
  const worker = new QueueWorker({
    queue: sessions,
    blockingConnection: () => infra.connection('queue shard wait', 'blocking'),
    workerId,
    concurrency: config.workerConcurrency,
    abortBus,
    runTurn: activityOf(infra, createTurnRunner(turnDependencies)),
    abandonTurn: createTurnAbandoner(turnDependencies),
    notifyFailing: createFailingNotifier(turnDependencies),
    failingNoticeMs: config.turnFailingNoticeMs,
    attempts: config.turnRetry.attempts,
    firstDelayMs: config.turnRetry.firstDelayMs,
    lateRounds: config.turnRetry.lateRounds,
    lateRoundDelayMs: config.turnRetry.lateRoundDelayMs,
    isPaused: () => paused,
    releases: { releasing: (release) => store.releasing?.(release), released: (release) => store.released?.(release) },
    metrics,
    logger: moduleLogger('worker'),
  });
  worker.start();
  // ROLE=all: the gateway's messages that find their session idle start here at once (see InboundQueue.setLocalWorker)
  shared.inbound.setLocalWorker(worker);
  // off `worker redis` for the reason `Infrastructure.bullmqRedis` gives
  const bullmqWorkerRedis = infra.connection('bullmq workers', 'worker');
  const compactions = startCompactionWorker({
    connection: bullmqWorkerRedis,
    // a summary is a model call like a turn's: WORKER_CONCURRENCY bounds them too
    concurrency: Math.min(2, config.workerConcurrency),
    workerName: workerId,
    bullmqPrefix: keys.bullmqPrefix,
    compact: (job) => compactor.compactFor(job.sessionKey, job.requestedBy ? { message: job.requestedBy } : undefined, { force: true }),
    logger: moduleLogger('compaction'),
  });
  const firings = new FiringWorker({ connection: bullmqWorkerRedis, prefix: keys.bullmqPrefix, db: infra.database.db, schedules: shared.scheduleQueue, inbound: shared.inbound, logger: moduleLogger('schedules'), metrics });
  await firings.rearmMissing().catch((error: unknown) => logger.warn({ err: error }, 'could not check the scheduled tasks against Redis'));
  firings.start();
  infra.onStopWithRedis('schedule firings', () => firings.close());
  infra.onStopWithRedis('compaction jobs', () => compactions.close());
  infra.onStopWithRedis('abort bus', () => abortBus.close());
  // a summary is an LLM call like a turn's, and gets the turns' time
  infra.onStop('summaries in progress', (budget) => settleBefore(compactor.idle(), budget.turnsEndAt));
  infra.onStop('worker heartbeat', async () => {
    clearInterval(pausePoll);
    // its turns were handed back: nothing of this worker is left to take over
    await beat.stop(true);
    await announceWorkerChange(shared.invalidations);
    // an enqueue that placed a session on this worker after the worker's own hand-back and before this stop waits in
    // its preferred set; no enqueue places one there now that it does not beat
    await sessions.handBackPreferred(workerId).catch((error: unknown) => logger.warn({ err: error }, 'could not hand the sessions waiting for this worker back'));
  });
  infra.onStop('workers', (budget) =>
    // a turn cannot finish without Redis: then they are all handed back at once (their state stays in Redis)
    infra.unlessRedisLost(worker.close(Math.max(0, budget.turnsEndAt - Date.now())), () => {
      logger.warn('Redis is away: handing running turns back instead of waiting for them');
      abortBus.abortAll('shutdown');
    }),
  );
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

/** Each turn counts as work under way for the whole of its run (see lifecycle/process-activity.ts). */
function activityOf(infra: Infrastructure, runTurn: TurnRunner): TurnRunner {
  return (request) => infra.activity.during(() => runTurn(request));
}
