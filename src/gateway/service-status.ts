import type { Queue } from 'bullmq';
import type { Channel } from '../core/channel.js';
import type { ChannelName } from '../core/inbound-message.js';
import type { ChannelActivity } from '../redis/channel-activity.js';
import type { KeySpace } from '../redis/key-space.js';
import type { WorkerMcpReport } from '../redis/mcp-status-board.js';
import { LeaderLease, type LeaseHolder } from '../redis/leader-lease.js';
import type { RedisClient } from '../redis/redis-client.js';
import type { SessionQueue } from '../redis/session-queue.js';

/** One queue's work by state: `turns` (the session queue), then the BullMQ queues (compactions, schedules). */
export interface QueueState {
  queue: string;
  /** Jobs a worker is running now (for `turns`: turns).  */
  running: number;
  /** Ready to run, by priority or not. */
  waiting: number;
  /** Waiting for a time (retries after a backoff, debounced wake-ups, one-shot tasks). */
  delayed: number;
  failed: number;
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
  queues: Queue[];
  channels: ChannelAccount[];
  activity: ChannelActivity;
  /** The workers' MCP reports (read for the workers beating now); absent: no agent declares an MCP server. */
  mcp?: { read(): Promise<WorkerMcpReport[]> } | undefined;
}): ServiceStatus {
  const { mcp } = options;
  const { redis, keys, activity } = options;
  const turns = async (): Promise<QueueState> => {
    const load = await options.sessions.load();
    return { queue: 'turns', running: load.running, waiting: load.due, delayed: load.scheduled, failed: 0 };
  };
  return {
    ...(mcp ? { mcpServers: () => mcp.read() } : {}),
    queues: async () => [
      await turns(),
      ...(await Promise.all(
        options.queues.map(async (queue) => {
          const counts = await queue.getJobCounts('active', 'waiting', 'prioritized', 'waiting-children', 'delayed', 'failed');
          return {
            queue: queue.name,
            running: counts.active ?? 0,
            waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts['waiting-children'] ?? 0),
            delayed: counts.delayed ?? 0,
            failed: counts.failed ?? 0,
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
