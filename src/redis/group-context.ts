import type { ContextLine, GroupContextPort } from '../core/turn-ports.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

export type { ContextLine } from '../core/turn-ports.js';

const KEEP = 50;

/**
 * Group messages nobody addressed to the bot: the last 50 per group session, handed to the model as
 * "messages since your last reply" and consumed once a turn that saw them is stored.
 */
export class GroupContext implements GroupContextPort {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  private key(sessionKey: string): string {
    return this.keys.session(sessionKey).groupContext;
  }

  async remember(sessionKey: string, line: ContextLine): Promise<void> {
    await this.redis.multi().lpush(this.key(sessionKey), JSON.stringify(line)).ltrim(this.key(sessionKey), 0, KEEP - 1).exec();
  }

  /** Oldest first. */
  async peek(sessionKey: string): Promise<ContextLine[]> {
    const raw = await this.redis.lrange(this.key(sessionKey), 0, KEEP - 1);
    return raw.reverse().map((line) => JSON.parse(line) as ContextLine);
  }

  /** Drops the `count` oldest lines a stored turn has seen; lines that arrived meanwhile stay. */
  async consume(sessionKey: string, count: number): Promise<void> {
    if (count <= 0) return;
    await this.redis.ltrim(this.key(sessionKey), 0, -(count + 1));
  }
}
