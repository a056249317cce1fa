import { crc32 } from 'node:zlib';
import type { Invalidations } from './invalidations.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

/** How often a process reads which workers beat. */
export const ROSTER_REFRESH_MS = 1_000;

/** Which worker a session's turns go to first (see lua/enqueue.lua); undefined: none known, any worker. */
export interface SessionPlacement {
  workerFor(sessionKey: string): string | undefined;
}

/**
 * The workers beating now (every worker beats in every shard: shard 0's registry is read), refreshed every
 * second and when a worker says it started or stopped (the `workers` invalidation), and for each session the one
 * its turns go to first: the highest hash of (session, worker), rendezvous hashing. Every process that reads the
 * same registry names the same worker for a session, with no word between them; a worker that joins or leaves
 * moves only the sessions it wins or held. A session that keeps its worker keeps its history in that worker's
 * cache: a gateway and two workers read a returning session's history on 0.8 of its turns with any worker taking
 * any session. A stale view costs a cache miss, never a turn: enqueue.lua checks the worker is beating and any
 * worker takes the session after a grace.
 */
export class WorkerRoster implements SessionPlacement {
  #workers: readonly string[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly refreshMs = ROSTER_REFRESH_MS,
  ) {}

  get workers(): readonly string[] {
    return this.#workers;
  }

  /** Reads the registry now, then every `refreshMs`; a failed read keeps the last view. */
  async start(): Promise<void> {
    await this.refresh().catch(() => undefined);
    this.#timer = setInterval(() => void this.refresh().catch(() => undefined), this.refreshMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Reads the registry again whenever a worker says it started or stopped (`announceWorkerChange`). */
  followChanges(invalidations: Invalidations): void {
    invalidations.on(WORKERS_TOPIC, () => void this.refresh().catch(() => undefined));
  }

  async refresh(): Promise<void> {
    const beating = await this.redis.hgetall(this.keys.shard(0).alive);
    const now = Date.now();
    this.#workers = Object.keys(beating)
      .filter((worker) => Number(beating[worker]) > now)
      .sort();
  }

  workerFor(sessionKey: string): string | undefined {
    return rendezvousWorker(sessionKey, this.#workers);
  }
}

const WORKERS_TOPIC = 'workers';

/** A worker began or stopped beating: every process's roster reads the registry now, not at its next second. */
export function announceWorkerChange(invalidations: Invalidations): Promise<void> {
  return invalidations.publish(WORKERS_TOPIC);
}

/** The worker with the highest hash of (session, worker); ties go to the first in order. */
export function rendezvousWorker(sessionKey: string, workers: readonly string[]): string | undefined {
  if (workers.length <= 1) return workers[0];
  const session = crc32(sessionKey);
  let best: string | undefined;
  let bestScore = -1;
  for (const worker of workers) {
    const score = mixed(crc32(worker, session));
    if (score > bestScore) {
      best = worker;
      bestScore = score;
    }
  }
  return best;
}

/**
 * MurmurHash3's finalizer: crc32 is linear, so the crc32s of one session with each worker differ by fixed bit
 * patterns and the highest would favour some workers; mixed, each worker wins an even share of sessions.
 */
function mixed(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
