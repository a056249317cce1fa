import type { KeySpace } from './key-space.js';
import { LuaScripts } from './lua-scripts.js';
import type { RedisClient } from './redis-client.js';
import type { ChannelNotes, ChannelState, SharedHighMarks, Sighting } from '../core/channel-state.js';

const SCRIPTS = { 'raise-mark': 1 } as const;

/** ChannelState (with notes and high marks) in Redis, so every gateway and worker process sees the same memory. */
export class RedisChannelState implements ChannelState, ChannelNotes, SharedHighMarks {
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

  /** A sorted set: the number is the score, `<number>|<tag>` the member (one per sighting, however often noted). */
  async note(key: string, sightings: readonly Sighting[], keepLast: number, ttlSeconds: number): Promise<void> {
    if (sightings.length === 0) return;
    const redisKey = this.keys.channelState(key);
    const highest = Math.max(...sightings.map((sighting) => sighting.value));
    await this.redis
      .multi()
      .zadd(redisKey, ...sightings.flatMap((sighting) => [sighting.value, `${sighting.value}|${sighting.tag}`]))
      .zremrangebyscore(redisKey, '-inf', `(${highest - keepLast}`)
      .expire(redisKey, ttlSeconds)
      .exec();
  }

  async noted(key: string, from: number, through: number, limit: number): Promise<Sighting[]> {
    const members = await this.redis.zrangebyscore(this.keys.channelState(key), from, through, 'LIMIT', 0, limit);
    return members.map((member) => {
      const bar = member.indexOf('|');
      return { value: Number(member.slice(0, bar)), tag: member.slice(bar + 1) };
    });
  }

  async has(key: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.channelState(key))) === 1;
  }

  async remember(key: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.keys.channelState(key), '1', 'EX', ttlSeconds);
  }

  async keepText(key: string, text: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.keys.channelState(key), text, 'EX', ttlSeconds);
  }

  async textOf(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.channelState(key))) ?? undefined;
  }

  async claim(key: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(this.keys.channelState(key), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
  }
}
