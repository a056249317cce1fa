import type { RedisClient } from '../redis/redis-client.js';
import { TurnAbortError, type TurnAbortReason } from '../core/turn-abort.js';
import type { Logger } from '../observability/logger.js';

interface AbortNotice {
  sessionKey: string;
  turnIds: string[];
}

/**
 * `/stop` reaches the worker holding a turn through Redis pub/sub; the scheduler's `aborted` set
 * is the backstop (lease renewal reports it) when a notice is missed.
 */
export class AbortBus {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly channel: string,
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient | undefined,
    private readonly logger: Logger,
  ) {}

  async listen(): Promise<void> {
    if (!this.subscriber) return;
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (channel !== this.channel) return;
      try {
        const notice = JSON.parse(raw) as AbortNotice;
        for (const turnId of notice.turnIds) this.abortLocal(turnId, 'stopped');
      } catch (error) {
        this.logger.warn({ err: error }, 'ignoring malformed abort notice');
      }
    });
    await this.subscriber.subscribe(this.channel);
  }

  register(turnId: string): AbortController {
    const controller = new AbortController();
    this.running.set(turnId, controller);
    return controller;
  }

  unregister(turnId: string): void {
    this.running.delete(turnId);
  }

  abortLocal(turnId: string, reason: TurnAbortReason): void {
    const controller = this.running.get(turnId);
    if (controller && !controller.signal.aborted) controller.abort(new TurnAbortError(reason));
  }

  abortAll(reason: TurnAbortReason): void {
    for (const turnId of this.running.keys()) this.abortLocal(turnId, reason);
  }

  async publish(sessionKey: string, turnIds: string[]): Promise<void> {
    if (turnIds.length === 0) return;
    await this.publisher.publish(this.channel, JSON.stringify({ sessionKey, turnIds } satisfies AbortNotice));
  }

  get runningCount(): number {
    return this.running.size;
  }

  async close(): Promise<void> {
    this.running.clear();
    if (this.subscriber) await this.subscriber.quit().catch(() => undefined);
  }
}
