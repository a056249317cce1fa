import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logger.js';
import { queueLua } from './lua-scripts.js';

type HeartbeatScript = (alive: string, workerId: string, deadAfterMs: string, judge: string) => Promise<string[]>;

export interface WorkerLivenessOptions {
  prefix: string;
  /** A worker silent this long is dead (WORKER_DEAD_AFTER_MS); it beats four times as often. */
  deadAfterMs: number;
  /** Takes the dead workers' turns over (called by the one process that claimed them). */
  onDead(workerIds: string[]): Promise<void>;
  logger: Logger;
}

/**
 * A worker process's liveness in Redis: one heartbeat a `deadAfterMs / 4` for the whole process (not one per
 * turn), in a registry of workers. Every worker judges the others on its beat, but only once its own beats have
 * been steady for `deadAfterMs` (after a Redis outage every process beats again before any is judged), and a
 * dead worker is claimed by one judge only, which expires the leases it held.
 */
export class WorkerLiveness {
  /** Begins every holder token of this process's leases (`<workerId>/<random>`). */
  readonly workerId = randomUUID().slice(0, 8) + randomUUID().slice(0, 4);
  readonly #beat: HeartbeatScript;
  readonly #key: string;
  #timer: NodeJS.Timeout | undefined;
  /** Since when (local clock) every beat has succeeded without a gap, or undefined after a failed one. */
  #steadySince: number | undefined;
  #lastBeatAt = 0;
  #beating = false;

  constructor(
    private readonly redis: Redis,
    private readonly options: WorkerLivenessOptions,
  ) {
    if (!('workerHeartbeat' in redis)) redis.defineCommand('workerHeartbeat', { numberOfKeys: 1, lua: queueLua('worker-heartbeat.lua') });
    this.#beat = (redis as unknown as Record<string, HeartbeatScript>).workerHeartbeat!.bind(redis);
    this.#key = `{${options.prefix}:workers}:alive`;
  }

  get intervalMs(): number {
    return Math.max(100, Math.floor(this.options.deadAfterMs / 4));
  }

  start(): void {
    void this.beat();
    this.#timer = setInterval(() => void this.beat(), this.intervalMs);
    this.#timer.unref();
  }

  /** One heartbeat; claims and takes over the dead when this process has been steadily alive long enough to judge. */
  async beat(): Promise<void> {
    if (this.#beating) return;
    this.#beating = true;
    const startedAt = Date.now();
    try {
      // a beat that comes late (a stalled event loop, Redis away) starts the steady period over
      if (this.#steadySince === undefined || startedAt - this.#lastBeatAt > 2 * this.intervalMs) this.#steadySince = startedAt;
      const judge = startedAt - this.#steadySince >= this.options.deadAfterMs;
      const dead = await this.#beat(this.#key, this.workerId, String(this.options.deadAfterMs), judge ? '1' : '0');
      this.#lastBeatAt = Date.now();
      if (dead.length > 0) {
        this.options.logger.warn({ workers: dead }, 'workers stopped beating; taking their turns over');
        await this.options.onDead(dead).catch((error: unknown) => this.options.logger.error({ err: error, workers: dead }, 'could not take over the turns of dead workers'));
      }
    } catch (error) {
      this.#steadySince = undefined;
      this.options.logger.debug({ err: error }, 'worker heartbeat failed');
    } finally {
      this.#beating = false;
    }
  }

  /** Leaves the registry (a worker that shut down cleanly handed its turns back already). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.redis.zrem(this.#key, this.workerId).catch(() => undefined);
  }
}
