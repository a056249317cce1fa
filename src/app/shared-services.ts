import { COMMAND_DESCRIPTIONS } from '../commands/index.js';
import { createAccountChannels } from '../../channels/index.js';
import { BudgetLedger, BudgetSettings, TurnBudgets } from '../budgets/index.js';
import { ChatSettingsResolver, type ChatLocation } from '../config/chat-settings.js';
import { ApprovalRecords } from '../approvals/index.js';
import { ChannelRegistry } from '../core/channel-registry.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { createOpenAiEmbedder } from '../llm/index.js';
import { MemoryService } from '../memory/index.js';
import { moduleLogger } from '../observability/logger.js';
import { AbortBus, InboundQueue } from '../queue/index.js';
import {
  BudgetStore,
  countTurns,
  DeadLetters,
  GroupContext,
  SessionQueueReader,
  TurnsPause,
  Invalidations,
  RedisChannelState,
  SessionQueue,
  WorkerRoster,
  type KeySpace,
  type RedisClient,
  type SessionQueueOptions,
} from '../redis/index.js';
import { ScheduleQueue, ScheduleService, topicPausedReason } from '../schedules/index.js';
import type { Infrastructure } from './infrastructure.js';

/**
 * The services both roles use, built once on the process's shared connection (`infra.redis`: it fails fast in a
 * gateway). A worker builds its own session queue and stores on a connection that waits for Redis instead.
 */
export interface SharedServices {
  chats: ChatSettingsResolver;
  channels: ChannelRegistry;
  /** The session queue's options: the same for every connection it is opened on. */
  queueOptions: SessionQueueOptions;
  /** The workers beating now, and the one each session goes to first. */
  roster: WorkerRoster;
  sessions: SessionQueue;
  /** The session queue read for operators (queue view, status, metrics), its dead letters, and the turns pause. */
  queueReader: SessionQueueReader;
  deadLetters: DeadLetters;
  turnsPause: TurnsPause;
  abortPublisher: AbortBus;
  inbound: InboundQueue;
  approvals: ApprovalRecords;
  groupContext: GroupContext;
  invalidations: Invalidations;
  memory: MemoryService;
  scheduleQueue: ScheduleQueue;
  schedules: ScheduleService;
  budgetStore: BudgetStore;
  budgetLedger: BudgetLedger;
  budgetSettings: BudgetSettings;
  /** The limits that apply to a message, and (in a worker) the model that charges its calls. */
  budgets: TurnBudgets;
  /** The subscriber connection every cache-dropping notice (and a worker's /stop notices) arrives on. */
  subscriber: RedisClient;
}

export async function buildSharedServices(infra: Infrastructure): Promise<SharedServices> {
  const { config, keys, redis, metrics } = infra;
  const chats = new ChatSettingsResolver(config);
  // which worker each session's turns go to first: the one whose cache holds its history
  const roster = new WorkerRoster(redis, keys);
  await roster.start();
  infra.onStop('worker roster', async () => roster.stop());
  const queueOptions = { ...sessionQueueOptions(infra, chats), placement: roster };
  const sessions = new SessionQueue(redis, keys, queueOptions);
  const abortPublisher = new AbortBus(keys.abortChannel, redis, undefined, moduleLogger('abort'));
  const inbound = new InboundQueue(infra.bullmqRedis, keys.bullmqPrefix, sessions, abortPublisher, moduleLogger('queue'));
  infra.onStopWithRedis('inbound queue', () => inbound.close());
  const queueReader = new SessionQueueReader(redis, keys);
  const deadLetters = new DeadLetters(redis, keys);
  const turnsPause = new TurnsPause(redis, keys);
  // read at each scrape, never per message: the turns by state from the session queue itself (bounded reads)
  metrics.sampleQueuesWith(async () => {
    const [counts, turns] = await Promise.all([
      inbound.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed'),
      Promise.all([queueReader.snapshot(), deadLetters.count(), turnsPause.isPaused()]).then(([snapshot, failed, paused]) =>
        countTurns(snapshot, (sessionKey) => sessions.limitFor(sessionKey), failed, paused),
      ),
    ]);
    return [
      // `active`: turns holding a slot (running or parked), as bull-board counts them
      { queue: 'turns', state: 'active', count: turns.running + turns.parked },
      ...Object.entries(turns).map(([state, count]) => ({ queue: 'turns', state, count })),
      ...Object.entries(counts).map(([state, count]) => ({ queue: inbound.queue.name, state, count })),
    ];
  });

  const subscriber = infra.connection('subscriber', 'subscriber');
  const invalidations = new Invalidations(keys.invalidationChannel, redis, moduleLogger('invalidations'));
  await invalidations.listen(subscriber);
  // a worker that starts or stops says so: the sessions placed on it move at once, not at the next read
  roster.followChanges(invalidations);
  const memory = new MemoryService(infra.database.db, moduleLogger('memory'), (scope) => void invalidations.publish('memory', scope));
  invalidations.on('memory', (scope) => memory.dropCached(scope), () => memory.dropCached());
  if (config.embedding) await memory.enableEmbeddings(createOpenAiEmbedder(config.embedding));

  const scheduleQueue = new ScheduleQueue(infra.bullmqRedis, keys.bullmqPrefix);
  infra.onStopWithRedis('schedule queue', () => scheduleQueue.close());
  const schedules = new ScheduleService(infra.database.db, scheduleQueue, config.schedules, moduleLogger('schedules'));

  const channels = new ChannelRegistry();
  const recordPlatformCall = (platform: string) => (_method: string, result: string) => metrics.platformCalls.inc({ channel: platform, result });
  for (const account of await createAccountChannels(config, moduleLogger('channels'), new RedisChannelState(redis, keys), recordPlatformCall, COMMAND_DESCRIPTIONS)) {
    channels.add(account.channel);
    chats.registerAccount(account.platform, account.channel.accountId, account.accountName);
  }
  // a topic the platform refused on a send (closed or deleted) pauses that topic's tasks, in whichever process sent
  const topicLogger = moduleLogger('membership');
  for (const channel of channels.all()) {
    channel.onTopicGone?.(async ({ channel: platform, accountId, chat, reason }) => {
      const paused = await schedules.pauseChat({ channel: platform, accountId, chatId: chat?.chatId, threadId: chat?.threadId }, topicPausedReason(reason));
      if (paused.length > 0) topicLogger.warn({ channel: platform, chatId: chat?.chatId, threadId: chat?.threadId, pausedTasks: paused.map((task) => task.id) }, "the platform refused the topic: its scheduled tasks paused");
      return { kind: 'recorded' };
    });
  }
  const budgetStore = new BudgetStore(redis, keys);
  const budgetLedger = new BudgetLedger(budgetStore, {
    onError: (error) => moduleLogger('budgets').warn({ err: error }, 'spend of unlimited calls could not be written to Redis; kept for the next try'),
  });
  // stop steps run last-registered first: this one after the turns that record spend have ended
  infra.onStopWithRedis('budget spend', () => budgetLedger.flush());
  const budgetSettings = new BudgetSettings(budgetStore, invalidations);
  const budgets = new TurnBudgets({
    defaults: config.budgets,
    // the message's agent's levels, then its chat's (channel, account, group overrides)
    levelsFor: (message) => [(config.agents.find((agent) => agent.id === message.agentId) ?? config.agents[0]!).budgets, chats.resolve(chatLocationOf(message)).budgets],
    prices: config.llmPrices,
    metrics,
    logger: moduleLogger('budgets'),
    ledger: budgetLedger,
    settings: budgetSettings,
  });
  return {
    chats,
    channels,
    queueOptions,
    roster,
    sessions,
    queueReader,
    deadLetters,
    turnsPause,
    abortPublisher,
    inbound,
    approvals: new ApprovalRecords(redis, keys),
    groupContext: new GroupContext(redis, keys),
    invalidations,
    memory,
    scheduleQueue,
    schedules,
    budgetStore,
    budgetLedger,
    budgetSettings,
    budgets,
    subscriber,
  };
}

function sessionQueueOptions(infra: Infrastructure, chats: ChatSettingsResolver): SessionQueueOptions {
  const { config } = infra;
  return {
    groupMaxConcurrent: config.groupMaxConcurrent,
    leaseMs: config.turnLeaseMs,
    debounceMs: config.inboundDebounceMs,
    albumWaitMs: config.media.groupWaitMs,
    // per session: channel, account and group overrides of the config file
    modeOf: (sessionKey) => chats.forSessionKey(sessionKey)?.queueMode ?? config.queueMode,
  };
}

export function chatLocationOf({ conversation }: InboundMessage): ChatLocation {
  return { channel: conversation.channel, accountId: conversation.accountId, chatType: conversation.chatType, chatId: conversation.chatId };
}

export type { KeySpace };
