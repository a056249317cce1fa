import type { SoakRedis } from './redis-server.js';
import type { SupervisedService } from './service.js';
import type { SoakSettings } from './settings.js';

/** One fault the soak injected. */
export interface FaultEvent {
  at: number;
  what: 'worker SIGKILL' | 'worker SIGTERM' | 'gateway SIGKILL' | 'redis SIGTERM' | 'redis SIGKILL';
  target: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jitter = (seconds: number) => seconds * 1000 * (0.8 + Math.random() * 0.4);

/**
 * The soak's faults until `stopAt`: a worker killed with SIGKILL every `workerKillS` (±20 %, the two in turn,
 * restarted a second later as a supervisor would), the gateway every `gatewayKillS`, Redis stopped with SIGTERM at
 * 40 % and with SIGKILL at 75 % of the run (down 3 s each), and one worker stopped with SIGTERM, turns in flight,
 * at 55 %. Every process is running again when it resolves.
 */
export async function runChaos(options: {
  settings: SoakSettings;
  workers: SupervisedService[];
  gateway: SupervisedService;
  redis: SoakRedis;
  startedAt: number;
  stopAt: number;
  log: (line: string) => void;
}): Promise<FaultEvent[]> {
  const { settings, workers, gateway, redis, startedAt, stopAt, log } = options;
  const events: FaultEvent[] = [];
  const record = (what: FaultEvent['what'], target: string) => {
    events.push({ at: Date.now(), what, target });
    log(`${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${what} (${target})`);
  };
  const span = stopAt - startedAt;
  const once = new Set<string>();
  const due = (name: string, fraction: number) => !once.has(name) && Date.now() - startedAt >= span * fraction && (once.add(name), true);
  let nextWorkerKill = Date.now() + jitter(settings.workerKillS);
  let nextGatewayKill = Date.now() + jitter(settings.gatewayKillS);
  let victim = 0;

  while (Date.now() < stopAt) {
    if (settings.redisRestarts && due('redis SIGTERM', 0.4)) {
      record('redis SIGTERM', 'redis');
      await redis.restart('SIGTERM', 3_000);
    } else if (settings.redisRestarts && due('redis SIGKILL', 0.75)) {
      record('redis SIGKILL', 'redis');
      await redis.restart('SIGKILL', 3_000);
    } else if (due('worker SIGTERM', 0.55)) {
      const worker = workers[victim % workers.length]!;
      victim += 1;
      record('worker SIGTERM', worker.name);
      await worker.kill('SIGTERM');
      await worker.restart();
    } else if (settings.workerKillS > 0 && Date.now() >= nextWorkerKill) {
      const worker = workers[victim % workers.length]!;
      victim += 1;
      record('worker SIGKILL', worker.name);
      await worker.kill('SIGKILL');
      await sleep(1_000);
      await worker.restart();
      nextWorkerKill = Date.now() + jitter(settings.workerKillS);
    } else if (settings.gatewayKillS > 0 && Date.now() >= nextGatewayKill) {
      record('gateway SIGKILL', gateway.name);
      await gateway.kill('SIGKILL');
      await sleep(1_000);
      await gateway.restart();
      nextGatewayKill = Date.now() + jitter(settings.gatewayKillS);
    }
    await sleep(250);
  }
  return events;
}

/** What WorkerBeat logs when it takes a dead worker's turns over. */
export const TAKEOVER_LOG_LINE = 'a worker stopped beating; its turns are taken over';

/**
 * Takeover time of every worker SIGKILL: from the kill to the first line of a worker reaping a dead one
 * (src/redis/worker-beat.ts) any process logged after it (undefined when none did within 60 s).
 */
export function takeoverTimes(events: FaultEvent[], services: SupervisedService[]): Array<number | undefined> {
  const takeovers = services.flatMap((service) => service.lines).filter((line) => line.msg === TAKEOVER_LOG_LINE).map((line) => line.time);
  return events
    .filter((event) => event.what === 'worker SIGKILL')
    .map((event) => {
      const first = takeovers.filter((time) => time >= event.at && time <= event.at + 60_000).sort((a, b) => a - b)[0];
      return first === undefined ? undefined : first - event.at;
    });
}

/** Parts settled after a worker died mid-send (or a send failed ambiguously), by resolution, from every process's log. */
export function inDoubtCounts(services: SupervisedService[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of services.flatMap((service) => service.lines)) {
    if (line.msg !== 'a part a dead or failed attempt may have sent was settled') continue;
    const key = `${String(line.channel)}:${String(line.resolution)}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
