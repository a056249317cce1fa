/**
 * A little shared memory for channel adapters that must agree across processes
 * (e.g. "the bot has answered in this Slack thread"); backed by Redis in the service.
 */
export interface ChannelState {
  has(key: string): Promise<boolean>;
  remember(key: string, ttlSeconds: number): Promise<void>;
}
