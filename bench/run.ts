// `npm run bench` (CONTRACT §8, issues 3, 23, 24, 25): the pipeline benchmark. Progress on stderr; stdout ends with one JSON line.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import { createTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../test/support/services.js';
import { runBareBullmq, type BareBullmqResult } from './bare-bullmq.js';
import { runCapacity, type CapacityResult } from './capacity.js';
import { runCluster, type ClusterResult } from './cluster.js';
import { startDeployment, type Deployment } from './deployment.js';
import { Harness } from './harness.js';
import { runEmbedded, runIdleAndStartup, type IdleReading } from './idle.js';
import { runChatSdkPeer, type PeerResult } from './peer.js';
import type { PhaseResult } from './phase.js';
import { rssMb } from './process-stats.js';
import { progress, sleep } from './progress.js';
import { scrape, sumOf, type Samples } from './prometheus.js';
import { redisServerPid } from './redis-stats.js';
import { buildReport, type RssReading } from './report.js';
import { loadSettings } from './settings.js';
import { summary } from './summary.js';
import { FreshSessions, updateFactory, type SessionPool } from './traffic.js';

const settings = loadSettings();
const redisUrl = TEST_REDIS_URL;
if (!/^redis:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/\d*)?$/.test(redisUrl)) throw new Error(`the benchmark only uses a local Redis, not ${redisUrl}`);
if (!['127.0.0.1', 'localhost'].includes(new URL(TEST_DATABASE_URL).hostname)) throw new Error('the benchmark only uses a local PostgreSQL');
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
const loadAtStart = loadAverage();

const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
const database = await createTestDatabase();
const databaseName = new URL(database.url).pathname.slice(1);
const redisPid = await redisServerPid(redis);
const harness = new Harness(settings, uniqueName('bench'), { servers: [redis], pids: redisPid ? [redisPid] : [] }, databaseName);
progress(`run ${harness.runId}: database ${databaseName}, Redis ${redisUrl}, ${availableParallelism()} cores, load average ${loadAtStart.join(' ')}`);
progress(`phases: ${[...settings.phases].join(', ')}`);
if (settings.quick) progress('BENCH_QUICK=1: reduced counts, figures are indicative only');

const startRoles = async (name: string, roles: Array<'all' | 'gateway' | 'worker'>, workerConcurrency: number | undefined): Promise<Deployment> =>
  harness.track(await startDeployment({ name, roles, prefix: harness.prefixFor(name), databaseUrl: database.url, redisUrl, workerConcurrency, extraEnv: harness.extraEnv(name) }));

/** RSS is read at rest, this long after a phase (see phase (d)). */
const RSS_SETTLE_MS = 4_000;

let bare: BareBullmqResult | undefined;
let throughput: PhaseResult | undefined;
let rss: { phase: PhaseResult; reading: RssReading } | undefined;
let latency: PhaseResult | undefined;
let lowRateLatency: PhaseResult | undefined;
let latencyWorkerConcurrency = settings.workerConcurrency;
let split: PhaseResult | undefined;
let capacity: CapacityResult | undefined;
let idle: IdleReading | undefined;
let startup: { medianMs: number; samplesMs: number[] } | undefined;
let embedded: IdleReading | undefined;
let peer: PeerResult | undefined;
let cluster: ClusterResult | undefined;
const warmups: PhaseResult[] = [];
let fatal: unknown;

async function cleanUp(): Promise<void> {
  await harness.cleanUp();
  if (process.env.BENCH_KEEP_DATABASE === '1') progress(`kept the database ${databaseName} (BENCH_KEEP_DATABASE=1)`);
  else await database.drop().catch((error: unknown) => progress(`dropping the database: ${String(error)}`));
  redis.disconnect();
}

process.once('SIGINT', () => {
  progress('interrupted: cleaning up');
  void cleanUp().finally(() => process.exit(130));
});

/** (b) the slow model at the target rate, after (b') at a rate the deployment can carry. */
async function latencyPhases(deployment: Deployment, sessions: SessionPool): Promise<void> {
  deployment.openai.settings.latencyMs = settings.slowModelMs;
  const needed = `${settings.openRate} msg/s needs ${Math.ceil((settings.openRate * settings.slowModelMs) / 1000)} turns at once (Little's law)`;
  progress(
    latencyWorkerConcurrency === undefined
      ? `model ${settings.slowModelMs} ms with the service's default WORKER_CONCURRENCY: ${needed}`
      : `model ${settings.slowModelMs} ms with WORKER_CONCURRENCY=${latencyWorkerConcurrency}: at most ${((latencyWorkerConcurrency * 1000) / settings.slowModelMs).toFixed(0)} turns/s can be in progress, ${needed}`,
  );
  lowRateLatency = await harness.openPhase(deployment, `(b') open loop ${settings.lowOpenRate} msg/s for ${settings.lowOpenSeconds} s, model ${settings.slowModelMs} ms`, sessions, settings.lowOpenRate, settings.lowOpenSeconds);
  latency = await harness.openPhase(deployment, `(b) open loop ${settings.openRate} msg/s for ${settings.openSeconds} s, model ${settings.slowModelMs} ms`, sessions, settings.openRate, settings.openSeconds);
  deployment.openai.settings.latencyMs = 0;
}

const { phases } = settings;
try {
  if (phases.has('bare')) {
    progress(`bare BullMQ: ${settings.bareJobs} no-op jobs, worker concurrency ${settings.bareConcurrency}`);
    bare = await runBareBullmq({ redisUrl, prefix: harness.prefixFor('bare'), jobs: settings.bareJobs, concurrency: settings.bareConcurrency, timeoutMs: 60_000 });
    progress(`bare BullMQ: ${bare.completed} jobs in ${bare.seconds.toFixed(2)} s = ${bare.jobsPerSec.toFixed(0)} jobs/s`);
  }

  const separateLatencyDeployment =
    settings.latencySplit || (settings.latencyWorkerConcurrency !== undefined && settings.latencyWorkerConcurrency !== settings.workerConcurrency);
  const latencyOnAll = phases.has('latency') && !separateLatencyDeployment;
  if (phases.has('throughput') || phases.has('rss') || latencyOnAll) {
    const all = await startRoles('all', ['all'], settings.workerConcurrency);
    const servicePid = all.children[0]!.pid;
    const startMb = rssMb(servicePid);
    const sessions = harness.pool(all, { dmUsers: settings.dmPool, firstUserId: 1_000_000 });
    // every pool session once, so the measured phases see returning sessions and a warm process
    warmups.push(await harness.closedPhase(all, 'warm-up (ROLE=all, model 0 ms)', sessions, Math.max(settings.warmupMessages, settings.dmPool + settings.groupPool), 60_000));
    if (phases.has('throughput')) {
      throughput = await harness.closedPhase(all, '(a) throughput, ROLE=all, model 0 ms', sessions, settings.throughputMessages, settings.throughputTimeLimitMs);
    }
    if (phases.has('rss')) {
      // RSS at rest, before as after the phase: the idle heap reclaim gives memory back after 1.5 s without work, and
      // the work ends some time after the last answer (the turns' stores and releases)
      await sleep(RSS_SETTLE_MS);
      const beforeMb = rssMb(servicePid);
      const heapBefore = heapOf(await scrape(all.gatewayUrl));
      const fresh = new FreshSessions(updateFactory(all.telegram), 5_000_000);
      const phase = await harness.closedPhase(all, `(d) ${settings.rssSessions} new sessions, ROLE=all, model 0 ms`, fresh, settings.rssSessions, settings.rssTimeLimitMs);
      await sleep(RSS_SETTLE_MS);
      const afterMb = rssMb(servicePid);
      const heapAfter = heapOf(await scrape(all.gatewayUrl));
      rss = { phase, reading: { startMb, beforeMb, afterMb, heapUsedAfterMb: heapAfter.usedMb, sessions: phase.answered } };
      progress(`(d) RSS after ${phase.answered} new sessions: start ${startMb.toFixed(1)} MB, before ${beforeMb.toFixed(1)} MB (${heapBefore.text}), after ${afterMb.toFixed(1)} MB (${heapAfter.text})`);
      if (phase.answered < settings.rssSessions) progress(`(d) NOTE: the time limit cut the run at ${phase.answered} of ${settings.rssSessions} sessions`);
    }
    if (latencyOnAll) await latencyPhases(all, sessions);
    await harness.stop(all);
  }

  if (phases.has('latency') && separateLatencyDeployment) {
    latencyWorkerConcurrency = settings.latencyWorkerConcurrency ?? settings.workerConcurrency;
    const roles: Array<'all' | 'gateway' | 'worker'> = settings.latencySplit ? ['gateway', 'worker'] : ['all'];
    const slow = await startRoles('latency', roles, latencyWorkerConcurrency);
    const sessions = harness.pool(slow, { dmUsers: settings.dmPool, firstUserId: 2_000_000 });
    warmups.push(await harness.closedPhase(slow, `warm-up (${settings.latencySplit ? 'gateway + worker' : 'ROLE=all'}, model 0 ms)`, sessions, settings.dmPool + settings.groupPool, 60_000));
    await latencyPhases(slow, sessions);
    await harness.stop(slow);
  }

  if (phases.has('peers')) peer = await runChatSdkPeer(harness, redisUrl);

  if (phases.has('split')) {
    const splitDeployment = harness.track(
      await startDeployment({
        name: 'split',
        roles: ['gateway', 'worker', 'worker'],
        prefix: harness.prefixFor('split'),
        databaseUrl: database.url,
        redisUrl,
        workerConcurrency: settings.workerConcurrency,
        extraEnv: harness.extraEnv('split'),
      }),
    );
    const sessions = harness.pool(splitDeployment, { dmUsers: settings.splitDmPool, firstUserId: 3_000_000 });
    warmups.push(await harness.closedPhase(splitDeployment, 'warm-up (gateway + 2 workers)', sessions, settings.splitDmPool + settings.groupPool, 60_000));
    split = await harness.closedPhase(splitDeployment, '(c) throughput, gateway + 2 workers, model 0 ms', sessions, settings.splitMessages, settings.splitTimeLimitMs);
    await harness.stop(splitDeployment);
  }

  if (phases.has('cluster')) cluster = await runCluster(harness, database.url);
  if (phases.has('capacity')) capacity = await runCapacity(harness, database.url, redisUrl);
  if (phases.has('idle') || phases.has('startup')) {
    ({ idle, startup } = await runIdleAndStartup(harness, database.url, redisUrl, { idle: phases.has('idle'), startup: phases.has('startup') }));
  }
  if (phases.has('embedded')) embedded = await runEmbedded(harness);
} catch (error) {
  fatal = error;
  progress(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}

await cleanUp();
const report = buildReport({
  settings,
  bare,
  throughput,
  rss,
  latency,
  lowRateLatency,
  latencyWorkerConcurrency,
  split,
  capacity,
  idle,
  startup,
  embedded,
  peer,
  cluster,
  warmups,
  duplicateAnswers: harness.duplicateAnswers,
  machine: { cores: availableParallelism(), loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage() },
});
const exitCode = fatal !== undefined || report.unanswered > 0 || report.failedPosts > 0 || report.duplicateAnswers > 0 ? 1 : 0;
if (report.unanswered > 0) progress(`${report.unanswered} messages were not answered`);
progress(summary(report, settings, { throughput, peer }));
process.stdout.write(`${JSON.stringify({ ...report, ...(fatal !== undefined ? { error: String(fatal) } : {}) })}\n`);
process.exit(exitCode);

/** The V8 heap's used and held sizes and the memory outside it, as the service's metrics give them. */
function heapOf(samples: Samples): { usedMb: number; text: string } {
  const mb = (name: string): number => sumOf(samples, name) / 2 ** 20;
  const usedMb = mb('nodejs_heap_size_used_bytes');
  return { usedMb, text: `heap used ${usedMb.toFixed(1)} of ${mb('nodejs_heap_size_total_bytes').toFixed(1)} MB, external ${mb('nodejs_external_memory_bytes').toFixed(1)} MB` };
}
