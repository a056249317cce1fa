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

export function loadSettings() {
  const quick = process.env.BENCH_QUICK === '1';
  const scale = (full: number, small: number) => (quick ? small : full);
  return {
    quick,
    workerConcurrency: integer('BENCH_WORKER_CONCURRENCY', 32),
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
    /** (c) one gateway + two workers, model 0 ms. */
    splitMessages: integer('BENCH_SPLIT_MESSAGES', scale(1_500, 500)),
    /** The split deployment's own session pool (warmed once each before it is measured). */
    splitDmPool: integer('BENCH_SPLIT_DM_POOL', scale(400, 200)),
    splitTimeLimitMs: integer('BENCH_SPLIT_TIME_LIMIT_MS', 60_000),
    answerTimeoutMs: integer('BENCH_ANSWER_TIMEOUT_MS', 120_000),
    /** Directory for `node --cpu-prof` profiles of the service children (unset: no profiling). */
    cpuProfileDir: process.env.BENCH_CPU_PROF_DIR || undefined,
    /** Only these phases (comma-separated: bare,throughput,rss,latency,split); unset: all. */
    phases: new Set((process.env.BENCH_PHASES || 'bare,throughput,rss,latency,split').split(',').map((phase) => phase.trim())),
  };
}

export type BenchSettings = ReturnType<typeof loadSettings>;
