import type { ModeFault } from './chaos.js';
import type { SoakSettings } from './settings.js';
import { StallProxy } from './stall-proxy.js';

/** Per process, the proxies its Redis and PostgreSQL connections go through, and the stall and drop faults. */
export interface SoakStallMode {
  /** The environment of process `name` with its REDIS_URL and DATABASE_URL through its own proxies. */
  envFor(name: string, env: Record<string, string>): Record<string, string>;
  faults: ModeFault[];
  /** The proxies' ports, by the server behind them. */
  ports: { redis: number[]; postgres: number[] };
  stop(): Promise<void>;
}

const between = (low: number, high: number) => Math.round(low + Math.random() * (high - low));

/**
 * Every process gets a proxy of its own to Redis and one to PostgreSQL, so one process can be stalled while
 * the others go on. Four kinds of fault, each about every `4 × stallS` (so one of them about every `stallS`):
 * a worker's Redis stalled 3–8 s (past WORKER_DEAD_AFTER_MS: the others take its turns over while it still
 * holds them, and it must find itself fenced when its traffic flows again), a worker's PostgreSQL stalled
 * 3–8 s (its flushes wait), and every Redis or PostgreSQL connection of a process (workers and the gateway in
 * turn) reset half-way.
 */
export async function startStallMode(
  settings: SoakSettings,
  names: { workers: string[]; gateway: string },
  targets: { redis: { host: string; port: number } | undefined; postgres: { host: string; port: number } },
): Promise<SoakStallMode> {
  if (!targets.redis) throw new Error('SOAK_STALLS=true needs SOAK_REDIS=single: a cluster client follows the nodes\' own addresses, past any proxy');
  const everyone = [...names.workers, names.gateway];
  const proxies = new Map<string, { redis: StallProxy; postgres: StallProxy }>();
  for (const name of everyone) {
    proxies.set(name, { redis: await new StallProxy(targets.redis).start(), postgres: await new StallProxy(targets.postgres).start() });
  }
  let turn = 0;
  const next = (pool: string[]) => pool[turn++ % pool.length]!;
  const period = settings.stallS * 4;
  const stall = (server: 'redis' | 'postgres', order: number): ModeFault => ({
    what: `${server} stall`,
    everyS: period,
    firstAfterS: settings.stallS * order,
    inject: async () => {
      const name = next(names.workers);
      const ms = between(3_000, 8_000);
      await proxies.get(name)![server].stall(ms);
      return `${name} ${ms} ms`;
    },
  });
  const drop = (server: 'redis' | 'postgres', order: number): ModeFault => ({
    what: `${server} connections dropped`,
    everyS: period,
    firstAfterS: settings.stallS * order,
    inject: async () => {
      const name = next(everyone);
      return `${name}: ${proxies.get(name)![server].drop()} connections`;
    },
  });
  return {
    envFor(name, env) {
      const own = proxies.get(name);
      if (!own) return env;
      return { ...env, REDIS_URL: own.redis.urlFor(env.REDIS_URL!), DATABASE_URL: own.postgres.urlFor(env.DATABASE_URL!) };
    },
    ports: { redis: [...proxies.values()].map(({ redis }) => redis.port), postgres: [...proxies.values()].map(({ postgres }) => postgres.port) },
    faults: [stall('redis', 1), stall('postgres', 2), drop('redis', 3), drop('postgres', 4)],
    async stop() {
      await Promise.all([...proxies.values()].flatMap(({ redis, postgres }) => [redis.stop(), postgres.stop()]));
    },
  };
}
