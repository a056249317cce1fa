import type { Queue } from 'bullmq';
import type { Channel } from '../core/channel.js';
import type { ChannelName } from '../core/inbound-message.js';
import type { ChannelActivity } from '../redis/channel-activity.js';
import type { KeySpace } from '../redis/key-space.js';
import type { WorkerMcpReport } from '../redis/mcp-status-board.js';
import { LeaderLease, type LeaseHolder } from '../redis/leader-lease.js';
import type { RedisClient } from '../redis/redis-client.js';
import type { SessionQueue } from '../redis/session-queue.js';
import { countTurns, type DeadLetters, type SessionQueueReader, type TurnsPause } from '../redis/index.js';

/** One queue's work by state: `turns` (the session queue), then the BullMQ queues (compactions, schedules). */
export interface QueueState {
  queue: string;
  /** Jobs a worker is running now (for `turns`: turns).  */
  running: number;
  /** Ready to run, by priority or not. */
  waiting: number;
  /** Waiting for a time (retries after a backoff, debounced wake-ups, one-shot tasks). */
  delayed: number;
  /** For `turns`: dead letters (abandoned after every retry); for BullMQ: failed jobs. */
  failed: number;
  /** `turns` only: turns that failed before and run, or wait to run, again. */
  retrying?: number;
  /** `turns` only: turns holding a slot while they wait for an approval (counted in `running`). */
  parked?: number;
  /** Paused by an operator: no new job (turn) starts. */
  paused: boolean;
}

export type Transport = 'webhook' | 'long polling' | 'Socket Mode' | 'long connection';

export interface ChannelConnection {
  channel: ChannelName;
  accountId: string;
  transport: Transport;
  /** Long polling, Socket Mode, long connection: the process holding the lease (undefined: nobody now). */
  holder?: LeaseHolder | undefined;
  /** When an update from this account last reached a gateway process (undefined: none recorded). */
  lastUpdateAt?: Date | undefined;
}

/** The live state the console's home page shows, read from Redis when asked (nothing is polled for it). */
export interface ServiceStatus {
  queues(): Promise<QueueState[]>;
  connections(): Promise<ChannelConnection[]>;
  /** Each beating worker's MCP servers (connecting, connected or down); absent: no agent declares one. */
  mcpServers?: () => Promise<WorkerMcpReport[]>;
}

const CONNECTION_TRANSPORTS: Record<ChannelName, Transport> = { telegram: 'long polling', slack: 'Socket Mode', feishu: 'long connection' };

/** The name of an account's connection lease (see app.ts, `holdConnection`). */
export const connectionName = (channel: Pick<ChannelAccount, 'name' | 'accountId'>): string => `connection:${channel.name}:${channel.accountId}`;

/** What the status needs of a channel: which account it is and whether it holds a connection. */
export type ChannelAccount = Pick<Channel, 'name' | 'accountId' | 'inboundConnection'>;

export function createServiceStatus(options: {
  redis: RedisClient;
  keys: KeySpace;
  sessions: SessionQueue;
  reader: SessionQueueReader;
  deadLetters: DeadLetters;
  pause: TurnsPause;
  queues: Queue[];
  channels: ChannelAccount[];
  activity: ChannelActivity;
  /** The workers' MCP reports (read for the workers beating now); absent: no agent declares an MCP server. */
  mcp?: { read(): Promise<WorkerMcpReport[]> } | undefined;
}): ServiceStatus {
  const { mcp } = options;
  const { redis, keys, activity } = options;
  const turns = async (): Promise<QueueState> => {
    const [snapshot, failed, paused] = await Promise.all([options.reader.snapshot(), options.deadLetters.count(), options.pause.isPaused()]);
    const counts = countTurns(snapshot, (sessionKey) => options.sessions.limitFor(sessionKey), failed, paused);
    return {
      queue: 'turns',
      running: counts.running + counts.parked,
      waiting: counts.waiting,
      delayed: counts.delayed,
      failed: counts.failed,
      retrying: counts.retrying,
      parked: counts.parked,
      paused,
    };
  };
  return {
    ...(mcp ? { mcpServers: () => mcp.read() } : {}),
    queues: async () => [
      await turns(),
      ...(await Promise.all(
        options.queues.map(async (queue) => {
          const [counts, paused] = await Promise.all([queue.getJobCounts('active', 'waiting', 'prioritized', 'waiting-children', 'delayed', 'failed'), queue.isPaused()]);
          return {
            queue: queue.name,
            running: counts.active ?? 0,
            waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts['waiting-children'] ?? 0),
            delayed: counts.delayed ?? 0,
            failed: counts.failed ?? 0,
            paused,
          };
        }),
      )),
    ],
    connections: async () => {
      const [lastUpdates, holders] = await Promise.all([
        activity.lastUpdates(),
        Promise.all(options.channels.map((channel) => (channel.inboundConnection ? LeaderLease.holderOf(redis, keys, connectionName(channel)) : undefined))),
      ]);
      return options.channels.map((channel, index) => ({
        channel: channel.name,
        accountId: channel.accountId,
        transport: channel.inboundConnection ? CONNECTION_TRANSPORTS[channel.name] : 'webhook',
        holder: holders[index],
        lastUpdateAt: lastUpdates.get(`${channel.name}:${channel.accountId}`),
      }));
    },
  };
}
