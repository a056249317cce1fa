import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import type { Logger } from '../observability/logger.js';

/** How often a process writes what it received since the last write. */
export const CHANNEL_ACTIVITY_FLUSH_MS = 5_000;

/**
 * When each channel account last received an update, shared by every gateway process for the operator
 * console: a message only touches memory here (no Redis command per message); a timer writes the latest
 * times, when there are new ones, to `{<prefix>:channels}:last-update` (a hash of `<channel>:<accountId>`
 * → epoch ms: one field per account, so it stays as small as the configuration). Two gateways of one
 * account write in turn, so the stored time may trail the newest by up to one flush interval.
 */
export class ChannelActivity {
  readonly #unwritten = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  private key(): string {
    return this.keys.channelActivity;
  }

  /** An update arrived for this account (memory only). */
  received(channel: string, accountId: string): void {
    this.#unwritten.set(`${channel}:${accountId}`, this.clock());
  }

  start(intervalMs = CHANNEL_ACTIVITY_FLUSH_MS): void {
    this.#timer ??= setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer; what was not written yet is dropped (the stop must not wait on Redis). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Writes the times received since the last write (one HSET), if any. */
  flush(): Promise<void> {
    this.#writing = this.#writing.then(async () => {
      if (this.#unwritten.size === 0) return;
      const times = [...this.#unwritten].flatMap(([account, atMs]) => [account, String(atMs)]);
      this.#unwritten.clear();
      await this.redis.hset(this.key(), ...times).catch((error: unknown) => this.logger.warn({ err: error }, 'could not record when the channels last received an update'));
    });
    return this.#writing;
  }

  /** The last update time of every account that received one, by `<channel>:<accountId>` (this process's unwritten ones included). */
  async lastUpdates(): Promise<Map<string, Date>> {
    const latest = new Map(Object.entries(await this.redis.hgetall(this.key())).map(([account, atMs]) => [account, Number(atMs)]));
    for (const [account, atMs] of this.#unwritten) latest.set(account, Math.max(atMs, latest.get(account) ?? 0));
    return new Map([...latest].map(([account, atMs]) => [account, new Date(atMs)]));
  }
}
