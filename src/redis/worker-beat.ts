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

  async beat(): Promise<void> {
    await Promise.all(
      this.keys.shards().map(async (shard) => {
        try {
          const [, ...dead] = await this.#scripts.run<string[]>('beat', [shard.alive], [this.workerId, this.options.ttlMs]);
          for (let index = 0; index < dead.length; index += 2) await this.reap(shard.shard, dead[index]!, dead[index + 1]!);
        } catch (error) {
          this.logger.warn({ err: error, shard: shard.shard }, 'worker heartbeat failed');
        }
      }),
    );
  }

  private async reap(shard: number, workerId: string, deadline: string): Promise<void> {
    const keys = this.keys.shard(shard);
    const turns = await this.#scripts.run<number>('reap-worker', [keys.alive, keys.held(workerId), keys.sched, keys.wake], [workerId, deadline]);
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
