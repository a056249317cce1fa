import type { KeySpace } from './key-space.js';
import { LuaScripts } from './lua-scripts.js';
import type { RedisClient } from './redis-client.js';
import type { ChannelState, SharedHighMarks } from '../core/channel-state.js';

const SCRIPTS = { 'raise-mark': 1 } as const;

/** ChannelState (and high marks) in Redis, so every gateway and worker process sees the same memory. */
export class RedisChannelState implements ChannelState, SharedHighMarks {
  readonly #scripts: LuaScripts<keyof typeof SCRIPTS>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.#scripts = new LuaScripts(redis, SCRIPTS);
  }

  async raise(key: string, value: number, ttlSeconds: number): Promise<void> {
    await this.#scripts.run('raise-mark', [this.keys.channelState(key)], [value, ttlSeconds]);
  }

  async read(key: string): Promise<number> {
    return Number((await this.redis.get(this.keys.channelState(key))) ?? 0) || 0;
  }

  async has(key: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.channelState(key))) === 1;
  }

  async remember(key: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.keys.channelState(key), '1', 'EX', ttlSeconds);
  }
}
