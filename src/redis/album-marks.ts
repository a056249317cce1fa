import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

/** Telegram sends an album's parts within about a second; a minute covers slow deliveries and retries. */
const TTL_SECONDS = 60;

/**
 * Albums addressed to the bot, across gateways: in a group only the captioned part mentions the bot, so the
 * other parts of an album whose captioned part was addressed are answered with it instead of becoming chatter.
 */
export class AlbumMarks {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  private key(mediaGroupId: string): string {
    return this.keys.albumAddressed(mediaGroupId);
  }

  async markAddressed(mediaGroupId: string): Promise<void> {
    await this.redis.set(this.key(mediaGroupId), '1', 'EX', TTL_SECONDS);
  }

  async isAddressed(mediaGroupId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(mediaGroupId))) === 1;
  }
}
