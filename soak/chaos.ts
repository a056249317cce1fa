import type { SupervisedService } from './service.js';
import type { SoakSettings } from './settings.js';

/** One fault the soak injected: `at` it began, `endedAt` every process and server it touched was back. */
export interface FaultEvent {
  at: number;
  endedAt: number;
  /** The fault's kind: `worker SIGKILL`, `redis SIGTERM`, `cluster failover (planned)`, `postgres stall`, … */
  what: string;
  target: string;
}

/**
 * A fault of a mode (soak/redis-faults.ts, soak/postgres-faults.ts, soak/stall-faults.ts): run once at `fraction`
 * of the run, or again and again every `everyS` (±20 %). `inject` resolves when everything is back, with the
 * target it hit (for the log).
 */
export interface ModeFault {
  what: string;
  fraction?: number;
  everyS?: number;
  /** The first of a periodic fault comes this long after the start (default `everyS`, ±20 %). */
  firstAfterS?: number;
  inject(): Promise<string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jitter = (seconds: number) => seconds * 1000 * (0.8 + Math.random() * 0.4);

/**
 * The soak's faults until `stopAt`: a worker killed with SIGKILL every `workerKillS` (±20 %, the two in turn,
 * restarted a second later as a supervisor would), the gateway every `gatewayKillS`, one worker stopped with
 * SIGTERM, turns in flight, at 55 %, and the faults of the modes (Redis restarts, cluster failovers and slot
 * migrations, PostgreSQL restarts, stalls) each at its fraction of the run or period. Every process is running
 * again when it resolves.
 */
export async function runChaos(options: {
  settings: SoakSettings;
  workers: SupervisedService[];
  gateway: SupervisedService;
  modeFaults: ModeFault[];
  startedAt: number;
  stopAt: number;
  log: (line: string) => void;
}): Promise<FaultEvent[]> {
  const { settings, workers, gateway, modeFaults, startedAt, stopAt, log } = options;
  const events: FaultEvent[] = [];
  const seconds = () => ((Date.now() - startedAt) / 1000).toFixed(0);
  const record = (what: string, target: string) => {
    const event = { at: Date.now(), endedAt: Date.now(), what, target };
    events.push(event);
    log(`${seconds()} s: ${what} (${target})`);
    return () => (event.endedAt = Date.now());
  };
  const inject = async (fault: ModeFault) => {
    const event = { at: Date.now(), endedAt: Date.now(), what: fault.what, target: '…' };
    events.push(event);
    log(`${seconds()} s: ${fault.what}`);
    try {
      event.target = await fault.inject();
    } catch (error) {
      // a fault that could not be injected is reported, not fatal: the verdict still counts what the chats saw
      event.target = `failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    event.endedAt = Date.now();
    log(`${seconds()} s: ${fault.what} done (${event.target})`);
  };
  const nextPeriodic = new Map(modeFaults.filter((fault) => fault.everyS).map((fault) => [fault, Date.now() + jitter(fault.firstAfterS ?? fault.everyS!)]));
  const span = stopAt - startedAt;
  const once = new Set<string>();
  const due = (name: string, fraction: number) => !once.has(name) && Date.now() - startedAt >= span * fraction && (once.add(name), true);
  let nextWorkerKill = Date.now() + jitter(settings.workerKillS);
  let nextGatewayKill = Date.now() + jitter(settings.gatewayKillS);
  let victim = 0;

  while (Date.now() < stopAt) {
    const scheduled = modeFaults.find((fault) => fault.fraction !== undefined && due(`${fault.what}@${fault.fraction}`, fault.fraction));
    const periodic = [...nextPeriodic].find(([, at]) => Date.now() >= at)?.[0];
    if (scheduled) {
      await inject(scheduled);
    } else if (due('worker SIGTERM', 0.55)) {
      const worker = workers[victim % workers.length]!;
      victim += 1;
      const ended = record('worker SIGTERM', worker.name);
      await worker.kill('SIGTERM');
      await worker.restart();
      ended();
    } else if (settings.workerKillS > 0 && Date.now() >= nextWorkerKill) {
      const worker = workers[victim % workers.length]!;
      victim += 1;
      const ended = record('worker SIGKILL', worker.name);
      await worker.kill('SIGKILL');
      await sleep(1_000);
      await worker.restart();
      ended();
      nextWorkerKill = Date.now() + jitter(settings.workerKillS);
    } else if (settings.gatewayKillS > 0 && Date.now() >= nextGatewayKill) {
      const ended = record('gateway SIGKILL', gateway.name);
      await gateway.kill('SIGKILL');
      await sleep(1_000);
      await gateway.restart();
      ended();
      nextGatewayKill = Date.now() + jitter(settings.gatewayKillS);
    } else if (periodic) {
      await inject(periodic);
      nextPeriodic.set(periodic, Date.now() + jitter(periodic.everyS!));
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
