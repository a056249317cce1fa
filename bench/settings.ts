/**
 * The benchmark's sizes, from BENCH_* environment variables. BENCH_QUICK=1 shrinks everything for a smoke run.
 * Every loop is bounded by a count and a time limit.
 */
function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return Math.floor(value);
}

/** A comma-separated list of increasing positive rates (msg/s). */
function rates(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.some((value, index) => !Number.isFinite(value) || value <= 0 || (index > 0 && value <= values[index - 1]!))) {
    throw new Error(`${name} must be increasing positive numbers separated by commas, got "${raw}"`);
  }
  return values;
}

export const ALL_PHASES = ['bare', 'throughput', 'rss', 'latency', 'peers', 'split', 'cluster', 'capacity', 'idle', 'startup', 'embedded'] as const;
export type PhaseName = (typeof ALL_PHASES)[number];

function phaseSet(raw: string): Set<PhaseName> {
  const names = raw.split(',').map((phase) => phase.trim()).filter((phase) => phase !== '');
  const unknown = names.filter((name) => !(ALL_PHASES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_PHASES: unknown phase ${unknown.join(', ')} (known: ${ALL_PHASES.join(', ')})`);
  return new Set(names as PhaseName[]);
}

export function loadSettings() {
  const quick = process.env.BENCH_QUICK === '1';
  const scale = (full: number, small: number) => (quick ? small : full);
  return {
    quick,
    /** WORKER_CONCURRENCY of every deployment; unset: none is passed, the service's default (what users get). */
    workerConcurrency: process.env.BENCH_WORKER_CONCURRENCY ? integer('BENCH_WORKER_CONCURRENCY', 32) : undefined,
    /** The bare BullMQ worker's concurrency: BENCH_WORKER_CONCURRENCY, else 32 (the service's default until issue 23). */
    bareConcurrency: integer('BENCH_WORKER_CONCURRENCY', 32),
    bareJobs: integer('BENCH_BARE_JOBS', scale(10_000, 2_000)),
    warmupMessages: integer('BENCH_WARMUP_MESSAGES', scale(500, 100)),
    /** (a) ROLE=all, model 0 ms, closed loop over a pool of returning sessions. */
    throughputMessages: integer('BENCH_THROUGHPUT_MESSAGES', scale(2_500, 500)),
    throughputTimeLimitMs: integer('BENCH_THROUGHPUT_TIME_LIMIT_MS', 60_000),
    maxOutstanding: integer('BENCH_MAX_OUTSTANDING', 256),
    maxPosts: integer('BENCH_MAX_POSTS', 32),
    dmPool: integer('BENCH_DM_POOL', scale(500, 300)),
    groupPool: integer('BENCH_GROUP_POOL', 20),
    /** Every n-th message is a group @mention (0: none). */
    groupEvery: integer('BENCH_GROUP_EVERY', 10),
    /** (d) distinct new sessions between the two RSS readings. */
    rssSessions: integer('BENCH_RSS_SESSIONS', scale(10_000, 1_000)),
    rssTimeLimitMs: integer('BENCH_RSS_TIME_LIMIT_MS', 180_000),
    /** (b) open loop with a slow model. */
    openRate: integer('BENCH_OPEN_RATE', 200),
    openSeconds: integer('BENCH_OPEN_SECONDS', scale(10, 3)),
    slowModelMs: integer('BENCH_MODEL_LATENCY_MS', 500),
    /** (b') the same slow model at a rate the deployment can carry, to tell intrinsic overhead from overload. */
    lowOpenRate: integer('BENCH_LOW_OPEN_RATE', 40),
    lowOpenSeconds: integer('BENCH_LOW_OPEN_SECONDS', scale(5, 3)),
    /** Set: (b) and (b') run on their own ROLE=all deployment with this WORKER_CONCURRENCY (Little's law: 200 msg/s × 0.5 s = 100 turns at once). */
    latencyWorkerConcurrency: process.env.BENCH_LATENCY_WORKER_CONCURRENCY ? integer('BENCH_LATENCY_WORKER_CONCURRENCY', 32) : undefined,
    /** `BENCH_LATENCY_SPLIT=1`: (b) and (b') run on a gateway and one worker of their own (the webhooks alone in a process). */
    latencySplit: process.env.BENCH_LATENCY_SPLIT === '1',
    /** (c) one gateway + two workers, model 0 ms. */
    splitMessages: integer('BENCH_SPLIT_MESSAGES', scale(1_500, 500)),
    /** The split deployment's own session pool (warmed once each before it is measured). */
    splitDmPool: integer('BENCH_SPLIT_DM_POOL', scale(400, 200)),
    splitTimeLimitMs: integer('BENCH_SPLIT_TIME_LIMIT_MS', 60_000),
    /** Capacity: one ROLE=all process at its default WORKER_CONCURRENCY, slow model, open-loop steps up to the first one whose overhead p99 is over the bound. */
    capacityRates: rates('BENCH_CAPACITY_RATES', [8, 16, 32, 64, 128, 256, 384, 512, 768, 1024]),
    capacitySeconds: integer('BENCH_CAPACITY_SECONDS', scale(4, 2)),
    /** A step lasts longer at low rates so that its p99 is not just its slowest message. */
    capacityMinMessages: integer('BENCH_CAPACITY_MIN_MESSAGES', scale(100, 30)),
    capacityModelMs: integer('BENCH_CAPACITY_MODEL_LATENCY_MS', 2_000),
    capacityOverheadP99Ms: integer('BENCH_CAPACITY_OVERHEAD_P99_MS', 50),
    /** No new step starts after this (the steps already run count). */
    capacityTimeLimitMs: integer('BENCH_CAPACITY_TIME_LIMIT_MS', scale(150_000, 40_000)),
    /** Sessions warmed (model 0 ms) before the first step; the pool grows with returning sessions as the steps need more. */
    capacityWarmupSessions: integer('BENCH_CAPACITY_WARMUP_SESSIONS', scale(64, 32)),
    /** Idle memory and start-up: seconds a started process idles before its VmRSS is read, and timed starts (median). */
    idleSeconds: integer('BENCH_IDLE_SECONDS', scale(5, 2)),
    startupRuns: integer('BENCH_STARTUP_RUNS', scale(5, 3)),
    /** Peers (bench/peers/): how long to wait for a peer's answers; a peer may lose messages, the service may not. */
    peerAnswerTimeoutMs: integer('BENCH_PEER_ANSWER_TIMEOUT_MS', 30_000),
    /** Cluster: gateway + 2 workers on a local three-master Redis Cluster, closed loop as in (c). */
    clusterMessages: integer('BENCH_CLUSTER_MESSAGES', scale(1_500, 500)),
    clusterTimeLimitMs: integer('BENCH_CLUSTER_TIME_LIMIT_MS', 60_000),
    answerTimeoutMs: integer('BENCH_ANSWER_TIMEOUT_MS', 120_000),
    /** Directory for `node --cpu-prof` profiles of the service children (unset: no profiling). */
    cpuProfileDir: process.env.BENCH_CPU_PROF_DIR || undefined,
    /** Only these phases (comma-separated, see ALL_PHASES); unset: all. */
    phases: phaseSet(process.env.BENCH_PHASES || ALL_PHASES.join(',')),
  };
}

export type BenchSettings = ReturnType<typeof loadSettings>;
