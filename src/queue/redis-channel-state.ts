import type { Redis } from 'ioredis';
import type { ChannelState } from '../core/channel-state.js';

/** ChannelState in Redis, so every gateway and worker process sees the same memory. */
export class RedisChannelState implements ChannelState {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async has(key: string): Promise<boolean> {
    return (await this.redis.exists(`${this.prefix}:state:${key}`)) === 1;
  }

  async remember(key: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(`${this.prefix}:state:${key}`, '1', 'EX', ttlSeconds);
  }
}
