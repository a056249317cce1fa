import type { Logger } from '../observability/logger.js';
import type { RedisClient } from './redis-client.js';

type Listener = (detail: string) => void;

/**
 * "What you cached is stale" across processes, over one pub/sub channel: a process that changes something others
 * cache (the console's budget limits, a scope's memories) publishes `<topic> <detail>`; every process that
 * listens drops its copy. A process whose subscription dropped (Redis restarted) may have missed some: it is
 * told to drop everything (`onReset`).
 */
export class Invalidations {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #resets = new Set<() => void>();

  constructor(
    private readonly channel: string,
    private readonly publisher: RedisClient,
    private readonly logger: Logger,
  ) {}

  /** Starts listening on `subscriber` (a connection in subscriber mode, shared with other channels). */
  async listen(subscriber: RedisClient): Promise<void> {
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const space = message.indexOf(' ');
      const topic = space < 0 ? message : message.slice(0, space);
      const detail = space < 0 ? '' : message.slice(space + 1);
      for (const listener of this.#listeners.get(topic) ?? []) listener(detail);
    });
    // a subscription re-established after a lost connection may have missed messages meanwhile
    let ready = false;
    subscriber.on('ready', () => {
      if (ready) for (const reset of this.#resets) reset();
      ready = true;
    });
    await subscriber.subscribe(this.channel);
    ready = true;
  }

  on(topic: string, listener: Listener, onReset?: () => void): void {
    let listeners = this.#listeners.get(topic);
    if (!listeners) this.#listeners.set(topic, (listeners = new Set()));
    listeners.add(listener);
    if (onReset) this.#resets.add(onReset);
  }

  /** Tells every listening process (this one too, through Redis). A failure is logged: caches expire on their own. */
  async publish(topic: string, detail = ''): Promise<void> {
    await this.publisher.publish(this.channel, detail ? `${topic} ${detail}` : topic).catch((error: unknown) => this.logger.warn({ err: error, topic }, 'could not tell other processes to drop a cached value'));
  }
}
