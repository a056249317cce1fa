import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import type { ChannelState } from '../core/channel-state.js';

/** ChannelState in Redis, so every gateway and worker process sees the same memory. */
export class RedisChannelState implements ChannelState {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  async has(key: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.channelState(key))) === 1;
  }

  async remember(key: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.keys.channelState(key), '1', 'EX', ttlSeconds);
  }
}
