import type { Logger } from '../observability/logger.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import { QueueScripts } from './scripts.js';

export interface WorkerBeatOptions {
  /** How often this process beats (and looks for workers that stopped). */
  intervalMs: number;
  /** How long one beat lasts: a worker silent this long is taken for dead and its turns are taken over. */
  ttlMs: number;
}

export const WORKER_BEAT_DEFAULTS: WorkerBeatOptions = { intervalMs: 1_000, ttlMs: 5_000 };

/**
 * A worker process's heartbeat in every shard. A worker that is killed stops beating; the first live worker to
 * notice reaps it: every session it held a turn of is looked at at once, and the acquire there takes the turn
 * back (no waiting out the turn's own lease). A stalled worker that beats again finds its turns gone: its
 * holder token no longer matches, so it can neither renew, send nor release them.
 */
export class WorkerBeat {
  readonly #scripts: QueueScripts;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  /** Since when every beat of this worker went through with no gap longer than a beat lasts (undefined: the last failed). */
  #steadySince: number | undefined;
  #lastBeatAt = -Infinity;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    readonly workerId: string,
    private readonly logger: Logger,
    private readonly options: WorkerBeatOptions = WORKER_BEAT_DEFAULTS,
    private readonly onReaped?: (workerId: string, turns: number) => void,
  ) {
    this.#scripts = new QueueScripts(redis);
  }

  /** Beats once (so this worker counts as alive before it takes a turn), then every interval. */
  async start(): Promise<void> {
    await this.beat();
    this.#timer = setInterval(() => {
      if (!this.#beating) this.#beating = this.beat().finally(() => (this.#beating = undefined));
    }, this.options.intervalMs);
    this.#timer.unref();
  }

  /**
   * Beats in every shard, and reaps the workers found silent, but only once this worker's own beats have been
   * steady for as long as a beat lasts. After a Redis outage (or a stall of this process) every live worker's
   * deadline may have passed; by the time this one has beaten steadily that long, each of them has beaten again.
   */
  async beat(): Promise<void> {
    let failed = false;
    const deadByShard = await Promise.all(
      this.keys.shards().map(async (shard) => {
        try {
          const [, ...dead] = await this.#scripts.run<string[]>('beat', [shard.alive], [this.workerId, this.options.ttlMs]);
          return dead;
        } catch (error) {
          failed = true;
          this.logger.warn({ err: error, shard: shard.shard }, 'worker heartbeat failed');
          return [];
        }
      }),
    );
    const now = performance.now();
    if (failed) {
      this.#steadySince = undefined;
      return;
    }
    // a gap longer than a beat lasts (Redis away with the commands queued, or this process stalled) starts over
    if (this.#steadySince === undefined || now - this.#lastBeatAt > this.options.ttlMs) this.#steadySince = now;
    this.#lastBeatAt = now;
    if (now - this.#steadySince < this.options.ttlMs) return;
    await Promise.all(
      this.keys.shards().map(async (shard, index) => {
        const dead = deadByShard[index]!;
        for (let at = 0; at < dead.length; at += 2) {
          await this.reap(shard.shard, dead[at]!, dead[at + 1]!).catch((error: unknown) => this.logger.warn({ err: error, shard: shard.shard }, 'could not take over a silent worker'));
        }
      }),
    );
  }

  private async reap(shard: number, workerId: string, deadline: string): Promise<void> {
    const keys = this.keys.shard(shard);
    const turns = await this.#scripts.run<number>('reap-worker', [keys.alive, keys.held(workerId), keys.sched, keys.wake, keys.preferred(workerId)], [workerId, deadline]);
    if (turns < 0) return;
    this.logger.warn({ worker: workerId, shard, turns }, 'a worker stopped beating; its turns are taken over');
    this.onReaped?.(workerId, turns);
  }

  /** Stops beating; with `forget`, the worker leaves every shard at once (its turns were handed back). */
  async stop(forget: boolean): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#beating;
    if (forget) await Promise.all(this.keys.shards().map((shard) => this.redis.hdel(shard.alive, this.workerId).catch(() => 0)));
  }
}
