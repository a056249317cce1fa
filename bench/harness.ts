import { mkdirSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Deployment } from './deployment.js';
import { closedLoop, openLoop } from './load.js';
import { measurePhase, type PhaseResult } from './phase.js';
import { cpuOfMachine, cpuOfPid, cpuOfProcessesNamed, systemCpuOfPid, type CpuProbe } from './process-stats.js';
import { progress } from './progress.js';
import { deleteKeysWithPrefix } from './redis-stats.js';
import type { BenchSettings } from './settings.js';
import { SessionPool, updateFactory, type Outgoing } from './traffic.js';

/** Where a deployment's Redis work is counted: the servers' INFO commandstats and their processes' CPU. */
export interface RedisTarget {
  servers: Redis[];
  pids: number[];
}

/** What every phase of one run shares: settings, the database, Redis key prefixes, the running deployments. */
export class Harness {
  private readonly prefixes: string[] = [];
  private readonly deployments: Deployment[] = [];
  /** Answers counted twice by the service's deployments (a peer's are its own figure). */
  duplicateAnswers = 0;

  constructor(
    readonly settings: BenchSettings,
    readonly runId: string,
    /** The single Redis (REDIS_URL) and its server process. */
    readonly redis: RedisTarget,
    readonly databaseName: string,
  ) {}

  prefixFor(phase: string): string {
    const prefix = `${this.runId}_${phase}`;
    this.prefixes.push(prefix);
    return prefix;
  }

  /** NODE_OPTIONS for `--cpu-prof` when BENCH_CPU_PROF_DIR is set. */
  extraEnv(name: string): Record<string, string> {
    if (!this.settings.cpuProfileDir) return {};
    const directory = `${this.settings.cpuProfileDir}/${name}`;
    mkdirSync(directory, { recursive: true });
    return { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${directory}` };
  }

  /** Keeps a started deployment so that it is stopped at the end whatever happens. */
  track<T extends Deployment>(deployment: T): T {
    this.deployments.push(deployment);
    return deployment;
  }

  async stop(deployment: Deployment, options: { peer?: boolean } = {}): Promise<void> {
    const index = this.deployments.indexOf(deployment);
    if (index !== -1) this.deployments.splice(index, 1);
    const duplicates = deployment.tracker.duplicateAnswers;
    if (!options.peer) this.duplicateAnswers += duplicates;
    if (duplicates > 0) progress(`${deployment.name}: ${duplicates} messages answered more than once`);
    await deployment.stop();
  }

  /** Stops what is still running and deletes the run's Redis keys (the database is the caller's). */
  async cleanUp(): Promise<void> {
    for (const deployment of [...this.deployments]) {
      await this.stop(deployment, { peer: deployment.children.some((child) => child.role === 'peer') }).catch((error: unknown) =>
        progress(`stopping ${deployment.name}: ${String(error)}`),
      );
    }
    for (const prefix of this.prefixes) {
      const deleted = await deleteKeysWithPrefix(this.redis.servers[0]!, prefix).catch(() => 0);
      if (deleted > 0) progress(`removed ${deleted} Redis keys of ${prefix}`);
    }
  }

  /**
   * Each service child's CPU (and kernel part), the bench process (load and doubles), Redis, our database's
   * PostgreSQL backends, the whole machine.
   */
  probesOf(deployment: Deployment, redis: RedisTarget = this.redis): CpuProbe[] {
    const redisProbes = redis.pids.map((pid, index) => cpuOfPid(redis.pids.length === 1 ? 'redis' : `redis${index}`, pid));
    return [
      ...deployment.children.flatMap((child, index) => {
        const label = deployment.children.length === 1 ? 'service' : `${child.role}${index}`;
        return [cpuOfPid(label, child.pid), systemCpuOfPid(`${label}Kernel`, child.pid)];
      }),
      cpuOfPid('bench', process.pid),
      ...redisProbes,
      cpuOfProcessesNamed('postgres', 'postgres', this.databaseName),
      cpuOfMachine(),
    ];
  }

  pool(deployment: Deployment, options: { dmUsers: number; firstUserId: number; groups?: number; groupEvery?: number }): SessionPool {
    return new SessionPool(updateFactory(deployment.telegram), {
      dmUsers: options.dmUsers,
      groups: options.groups ?? this.settings.groupPool,
      firstUserId: options.firstUserId,
      firstGroupId: -1000 * options.firstUserId,
      groupEvery: options.groupEvery ?? this.settings.groupEvery,
    }).followAnswers(deployment.tracker);
  }

  closedPhase(
    deployment: Deployment,
    label: string,
    source: { take(): Outgoing | undefined },
    count: number,
    timeLimitMs: number,
    options: { redis?: RedisTarget; answerTimeoutMs?: number } = {},
  ): Promise<PhaseResult> {
    const { settings } = this;
    const redis = options.redis ?? this.redis;
    return measurePhase({
      label,
      deployment,
      redisServers: redis.servers,
      cpuProbes: this.probesOf(deployment, redis),
      answerTimeoutMs: options.answerTimeoutMs ?? settings.answerTimeoutMs,
      drive: () =>
        closedLoop({ client: deployment.client, tracker: deployment.tracker, source, count, maxOutstanding: settings.maxOutstanding, maxPosts: settings.maxPosts, timeLimitMs }),
    });
  }

  /** `answerTimeoutMs`: a peer's (its losses are its figure); unset: the run's. */
  openPhase(deployment: Deployment, label: string, source: { next(): Outgoing }, rate: number, seconds: number, answerTimeoutMs?: number): Promise<PhaseResult> {
    return measurePhase({
      label,
      deployment,
      redisServers: this.redis.servers,
      cpuProbes: this.probesOf(deployment),
      answerTimeoutMs: answerTimeoutMs ?? this.settings.answerTimeoutMs,
      drive: () => openLoop({ client: deployment.client, tracker: deployment.tracker, source, rate, durationMs: seconds * 1000 }),
    });
  }
}
