import type { Logger } from '../observability/logger.js';
import type { KeySpace, ShardKeys } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import { QueueScripts } from './scripts.js';

export interface WorkerBeatOptions {
  /** How often this process beats (and looks for workers that stopped). */
  intervalMs: number;
  /** How long one beat lasts: a worker silent this long is taken for dead and its turns are taken over. */
  ttlMs: number;
}

export const WORKER_BEAT_DEFAULTS: WorkerBeatOptions = { intervalMs: 1_000, ttlMs: 5_000 };

/** One shard's beats: a shard's steadiness is its own, so a slow or failing master holds back only its own beats. */
interface ShardBeats {
  /** Its beat on its way, if any: the interval starts the next one only once it is back. */
  beating: Promise<void> | undefined;
  /** Since when every beat in this shard went through with no gap longer than a beat lasts (undefined: the last failed). */
  steadySince: number | undefined;
  lastBeatAt: number;
}

/**
 * A worker process's heartbeat in every shard, each shard on its own: with a Redis Cluster, a master that is slow
 * or away delays and fails only the beats of its own shards (its turns may be taken over), not those of every
 * shard. A worker that is killed stops beating; the first live worker to notice reaps it in that shard: every
 * session it held a turn of there is looked at at once, and the acquire takes the turn back (no waiting out the
 * turn's own lease). A stalled worker that beats again finds its turns gone: its holder token no longer matches,
 * so it can neither renew, send nor release them.
 */
export class WorkerBeat {
  readonly #scripts: QueueScripts;
  readonly #shards = new Map<number, ShardBeats>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    readonly workerId: string,
    private readonly logger: Logger,
    private readonly options: WorkerBeatOptions = WORKER_BEAT_DEFAULTS,
    private readonly onReaped?: (workerId: string, turns: number) => void,
  ) {
    this.#scripts = new QueueScripts(redis);
    for (const shard of keys.shards()) this.#shards.set(shard.shard, { beating: undefined, steadySince: undefined, lastBeatAt: -Infinity });
  }

  /** Beats once (so this worker counts as alive before it takes a turn), then every interval, in each shard apart. */
  async start(): Promise<void> {
    await this.beat();
    this.#timer = setInterval(() => {
      for (const shard of this.keys.shards()) void this.#beatOnce(shard);
    }, this.options.intervalMs);
    this.#timer.unref();
  }

  /** Beats in every shard (each on its own; a shard whose last beat is still on its way is waited for), until all are back. */
  async beat(): Promise<void> {
    await Promise.all(this.keys.shards().map((shard) => this.#beatOnce(shard)));
  }

  #beatOnce(shard: ShardKeys): Promise<void> {
    const state = this.#shards.get(shard.shard)!;
    state.beating ??= this.#beatShard(shard, state).finally(() => (state.beating = undefined));
    return state.beating;
  }

  /**
   * Beats in one shard, and reaps the workers found silent there, but only once this worker's own beats in it have
   * been steady for as long as a beat lasts. After an outage of that shard (or a stall of this process) every live
   * worker's deadline there may have passed; by the time this one has beaten steadily that long, each of them has
   * beaten again.
   */
  async #beatShard(shard: ShardKeys, state: ShardBeats): Promise<void> {
    let dead: string[];
    try {
      [, ...dead] = await this.#scripts.run<string[]>('beat', [shard.alive], [this.workerId, this.options.ttlMs]);
    } catch (error) {
      state.steadySince = undefined;
      this.logger.warn({ err: error, shard: shard.shard }, 'worker heartbeat failed');
      return;
    }
    const now = performance.now();
    // a gap longer than a beat lasts (this shard away with the commands queued, or this process stalled) starts over
    if (state.steadySince === undefined || now - state.lastBeatAt > this.options.ttlMs) state.steadySince = now;
    state.lastBeatAt = now;
    if (now - state.steadySince < this.options.ttlMs) return;
    for (let at = 0; at < dead.length; at += 2) {
      await this.reap(shard.shard, dead[at]!, dead[at + 1]!).catch((error: unknown) => this.logger.warn({ err: error, shard: shard.shard }, 'could not take over a silent worker'));
    }
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
    await Promise.all([...this.#shards.values()].map((state) => state.beating));
    if (forget) await Promise.all(this.keys.shards().map((shard) => this.redis.hdel(shard.alive, this.workerId).catch(() => 0)));
  }
}
