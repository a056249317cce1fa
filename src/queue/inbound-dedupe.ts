import type { Redis } from 'ioredis';

const SEEN_TTL_SECONDS = 24 * 60 * 60;

/**
 * Once-only handling, across processes, for inbound messages that never reach the scheduler
 * (commands, unaddressed group chatter). Shares the scheduler's `seen` keys, so a redelivery is
 * recognized for 24 hours whatever path the first copy took.
 */
export class InboundDedupe {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(dedupeKey: string): string {
    return `${this.prefix}:seen:${dedupeKey}`;
  }

  /** True for the first claim of a message; false for every redelivery. */
  async claim(dedupeKey: string, kind: 'command' | 'context' | 'access'): Promise<boolean> {
    return (await this.redis.set(this.key(dedupeKey), kind, 'EX', SEEN_TTL_SECONDS, 'NX')) === 'OK';
  }

  /** Handling failed: let the platform's retry try again. */
  async release(dedupeKey: string): Promise<void> {
    await this.redis.del(this.key(dedupeKey));
  }
}
