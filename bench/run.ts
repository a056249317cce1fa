// `npm run bench` (CONTRACT §8, issue 3): the pipeline benchmark. Progress on stderr; stdout ends with one JSON line.
import { mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import { createTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../test/support/services.js';
import { runBareBullmq, type BareBullmqResult } from './bare-bullmq.js';
import { startDeployment, type Deployment } from './deployment.js';
import { closedLoop, openLoop } from './load.js';
import { measurePhase, type PhaseResult } from './phase.js';
import { cpuOfMachine, cpuOfPid, cpuOfProcessesNamed, rssMb, systemCpuOfPid, type CpuProbe } from './process-stats.js';
import { progress, sleep } from './progress.js';
import { scrape, sumOf } from './prometheus.js';
import { deleteKeysWithPrefix, redisServerPid } from './redis-stats.js';
import { buildReport, type RssReading } from './report.js';
import { loadSettings } from './settings.js';
import { FreshSessions, SessionPool, updateFactory, type Outgoing } from './traffic.js';

const settings = loadSettings();
const redisUrl = TEST_REDIS_URL;
if (!/^redis:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/\d*)?$/.test(redisUrl)) throw new Error(`the benchmark only uses a local Redis, not ${redisUrl}`);
if (!['127.0.0.1', 'localhost'].includes(new URL(TEST_DATABASE_URL).hostname)) throw new Error('the benchmark only uses a local PostgreSQL');
const runId = uniqueName('bench');
const prefixes: string[] = [];
const prefixFor = (phase: string) => {
  const prefix = `${runId}_${phase}`;
  prefixes.push(prefix);
  return prefix;
};
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
const loadAtStart = loadAverage();

const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
const database = await createTestDatabase();
const databaseName = new URL(database.url).pathname.slice(1);
const deployments: Deployment[] = [];
progress(`run ${runId}: database ${databaseName}, Redis ${redisUrl}, ${availableParallelism()} cores, load average ${loadAtStart.join(' ')}`);
if (settings.quick) progress('BENCH_QUICK=1: reduced counts, figures are indicative only');

const redisPid = await redisServerPid(redis);
/** The bench process (load generator and doubles), Redis, our database's PostgreSQL backends, the whole machine. */
const sharedProbes = (): CpuProbe[] => [
  cpuOfPid('bench', process.pid),
  ...(redisPid ? [cpuOfPid('redis', redisPid)] : []),
  cpuOfProcessesNamed('postgres', 'postgres', databaseName),
  cpuOfMachine(),
];
const extraEnv = (name: string): Record<string, string> => {
  if (!settings.cpuProfileDir) return {};
  const directory = `${settings.cpuProfileDir}/${name}`;
  mkdirSync(directory, { recursive: true });
  return { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${directory}` };
};
const startRoleAll = (name: string, workerConcurrency: number) =>
  startDeployment({ name, roles: ['all'], prefix: prefixFor(name), databaseUrl: database.url, redisUrl, workerConcurrency, extraEnv: extraEnv(name) }).then(
    (deployment) => (deployments.push(deployment), deployment),
  );
async function stopDeployment(deployment: Deployment): Promise<void> {
  deployments.splice(deployments.indexOf(deployment), 1);
  duplicateAnswers += deployment.tracker.duplicateAnswers;
  if (deployment.tracker.duplicateAnswers > 0) progress(`${deployment.name}: ${deployment.tracker.duplicateAnswers} messages answered more than once`);
  await deployment.stop();
}
const probesOf = (deployment: Deployment): CpuProbe[] => [
  ...deployment.children.flatMap((child, index) => {
    const label = deployment.children.length === 1 ? 'service' : `${child.role}${index}`;
    return [cpuOfPid(label, child.pid), systemCpuOfPid(`${label}Kernel`, child.pid)];
  }),
  ...sharedProbes(),
];
const pool = (deployment: Deployment, dmUsers: number, base: number) =>
  new SessionPool(updateFactory(deployment.telegram), {
    dmUsers,
    groups: settings.groupPool,
    firstUserId: base,
    firstGroupId: -1000 * base,
    groupEvery: settings.groupEvery,
  }).followAnswers(deployment.tracker);
type Source = { take(): Outgoing | undefined };
const closedPhase = (deployment: Deployment, label: string, source: Source, count: number, timeLimitMs: number) =>
  measurePhase({
    label,
    deployment,
    redis,
    cpuProbes: probesOf(deployment),
    answerTimeoutMs: settings.answerTimeoutMs,
    drive: () =>
      closedLoop({ client: deployment.client, tracker: deployment.tracker, source, count, maxOutstanding: settings.maxOutstanding, maxPosts: settings.maxPosts, timeLimitMs }),
  });
const openPhase = (deployment: Deployment, label: string, source: SessionPool, rate: number, seconds: number) =>
  measurePhase({
    label,
    deployment,
    redis,
    cpuProbes: probesOf(deployment),
    answerTimeoutMs: settings.answerTimeoutMs,
    drive: () => openLoop({ client: deployment.client, tracker: deployment.tracker, source, rate, durationMs: seconds * 1000 }),
  });

let bare: BareBullmqResult | undefined;
let throughput: PhaseResult | undefined;
let rss: { phase: PhaseResult; reading: RssReading } | undefined;
let latency: PhaseResult | undefined;
let lowRateLatency: PhaseResult | undefined;
let latencyWorkerConcurrency = settings.workerConcurrency;
let split: PhaseResult | undefined;
const warmups: PhaseResult[] = [];
let duplicateAnswers = 0;
let fatal: unknown;

async function cleanUp(): Promise<void> {
  for (const deployment of [...deployments]) await stopDeployment(deployment).catch((error: unknown) => progress(`stopping ${deployment.name}: ${String(error)}`));
  for (const prefix of prefixes) {
    const deleted = await deleteKeysWithPrefix(redis, prefix).catch(() => 0);
    if (deleted > 0) progress(`removed ${deleted} Redis keys of ${prefix}`);
  }
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
  const bound = (latencyWorkerConcurrency * 1000) / settings.slowModelMs;
  progress(
    `model ${settings.slowModelMs} ms with WORKER_CONCURRENCY=${latencyWorkerConcurrency}: at most ${bound.toFixed(0)} turns/s can be in progress ` +
      `(Little's law), ${settings.openRate} msg/s needs ${Math.ceil((settings.openRate * settings.slowModelMs) / 1000)} turns at once`,
  );
  lowRateLatency = await openPhase(deployment, `(b') open loop ${settings.lowOpenRate} msg/s for ${settings.lowOpenSeconds} s, model ${settings.slowModelMs} ms`, sessions, settings.lowOpenRate, settings.lowOpenSeconds);
  latency = await openPhase(deployment, `(b) open loop ${settings.openRate} msg/s for ${settings.openSeconds} s, model ${settings.slowModelMs} ms`, sessions, settings.openRate, settings.openSeconds);
  deployment.openai.settings.latencyMs = 0;
}

try {
  if (settings.phases.has('bare')) {
    progress(`bare BullMQ: ${settings.bareJobs} no-op jobs, worker concurrency ${settings.workerConcurrency}`);
    bare = await runBareBullmq({ redisUrl, prefix: prefixFor('bare'), jobs: settings.bareJobs, concurrency: settings.workerConcurrency, timeoutMs: 60_000 });
    progress(`bare BullMQ: ${bare.completed} jobs in ${bare.seconds.toFixed(2)} s = ${bare.jobsPerSec.toFixed(0)} jobs/s`);
  }

  const separateLatencyDeployment = settings.latencyWorkerConcurrency !== undefined && settings.latencyWorkerConcurrency !== settings.workerConcurrency;
  const latencyOnAll = settings.phases.has('latency') && !separateLatencyDeployment;
  if (settings.phases.has('throughput') || settings.phases.has('rss') || latencyOnAll) {
    const all = await startRoleAll('all', settings.workerConcurrency);
    const servicePid = all.children[0]!.pid;
    const startMb = rssMb(servicePid);
    const sessions = pool(all, settings.dmPool, 1_000_000);
    // every pool session once, so the measured phases see returning sessions and a warm process
    warmups.push(await closedPhase(all, 'warm-up (ROLE=all, model 0 ms)', sessions, Math.max(settings.warmupMessages, settings.dmPool + settings.groupPool), 60_000));
    if (settings.phases.has('throughput')) {
      throughput = await closedPhase(all, '(a) throughput, ROLE=all, model 0 ms', sessions, settings.throughputMessages, settings.throughputTimeLimitMs);
    }
    if (settings.phases.has('rss')) {
      await sleep(1_000);
      const beforeMb = rssMb(servicePid);
      const fresh = new FreshSessions(updateFactory(all.telegram), 5_000_000);
      const phase = await closedPhase(all, `(d) ${settings.rssSessions} new sessions, ROLE=all, model 0 ms`, fresh, settings.rssSessions, settings.rssTimeLimitMs);
      await sleep(2_000);
      const afterMb = rssMb(servicePid);
      const heapUsedAfterMb = sumOf(await scrape(all.gatewayUrl), 'nodejs_heap_size_used_bytes') / 2 ** 20;
      rss = { phase, reading: { startMb, beforeMb, afterMb, heapUsedAfterMb, sessions: phase.answered } };
      progress(`(d) RSS after ${phase.answered} new sessions: start ${startMb.toFixed(1)} MB, before ${beforeMb.toFixed(1)} MB, after ${afterMb.toFixed(1)} MB (heap used ${heapUsedAfterMb.toFixed(1)} MB)`);
      if (phase.answered < settings.rssSessions) progress(`(d) NOTE: the time limit cut the run at ${phase.answered} of ${settings.rssSessions} sessions`);
    }
    if (latencyOnAll) await latencyPhases(all, sessions);
    await stopDeployment(all);
  }

  if (settings.phases.has('latency') && separateLatencyDeployment) {
    latencyWorkerConcurrency = settings.latencyWorkerConcurrency!;
    const slow = await startRoleAll('latency', latencyWorkerConcurrency);
    const sessions = pool(slow, settings.dmPool, 2_000_000);
    warmups.push(await closedPhase(slow, 'warm-up (ROLE=all, model 0 ms)', sessions, settings.dmPool + settings.groupPool, 60_000));
    await latencyPhases(slow, sessions);
    await stopDeployment(slow);
  }

  if (settings.phases.has('split')) {
    const splitDeployment = await startDeployment({
      name: 'split',
      roles: ['gateway', 'worker', 'worker'],
      prefix: prefixFor('split'),
      databaseUrl: database.url,
      redisUrl,
      workerConcurrency: settings.workerConcurrency,
      extraEnv: extraEnv('split'),
    });
    deployments.push(splitDeployment);
    const sessions = pool(splitDeployment, settings.splitDmPool, 3_000_000);
    warmups.push(await closedPhase(splitDeployment, 'warm-up (gateway + 2 workers)', sessions, settings.splitDmPool + settings.groupPool, 60_000));
    split = await closedPhase(splitDeployment, '(c) throughput, gateway + 2 workers, model 0 ms', sessions, settings.splitMessages, settings.splitTimeLimitMs);
    await stopDeployment(splitDeployment);
  }
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
  warmups,
  duplicateAnswers,
  machine: { cores: availableParallelism(), loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage() },
});
const exitCode = fatal !== undefined || report.unanswered > 0 || report.failedPosts > 0 || report.duplicateAnswers > 0 ? 1 : 0;
if (report.unanswered > 0) progress(`${report.unanswered} messages were not answered`);
const verdict = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : 'MISSED');
progress(
  [
    'summary:',
    `  messagesPerSec ${report.messagesPerSec} vs bare BullMQ ${report.bareBullmqJobsPerSec} jobs/s: ratio ${report.ratioToBareBullmq} (target >= 0.3: ${verdict(report.targets.ratioToBareBullmqAtLeast0_3)})`,
    `  at ${settings.openRate} msg/s, model ${settings.slowModelMs} ms: ack p50/p99 ${report.ingressAckP50Ms}/${report.ingressAckP99Ms} ms (p99 <= 5: ${verdict(report.targets.ingressAckP99AtMost5Ms)}), ` +
      `overhead p50/p99 ${report.overheadP50Ms}/${report.overheadP99Ms} ms (p99 <= 20: ${verdict(report.targets.overheadP99AtMost20Ms)})`,
    `  at ${settings.lowOpenRate} msg/s: ack p99 ${report.lowRateIngressAckP99Ms} ms, overhead p50/p99 ${report.lowRateOverheadP50Ms}/${report.lowRateOverheadP99Ms} ms`,
    `  PostgreSQL per turn: ${report.pgWritesPerTurn} writes, ${report.pgTransactionStatementsPerTurn} BEGIN/COMMIT, ${report.pgReadsPerTurn} reads (one transaction: ${verdict(report.targets.onePgTransactionPerTurn)})`,
    `  RSS ${report.rssMb} MB, growth ${report.rssGrowthMb} MB over ${report.counts.rssSessions} new sessions (<= 50: ${verdict(report.targets.rssGrowthAtMost50Mb)})`,
    `  gateway + 2 workers: ${report.splitRolesMessagesPerSec} msg/s; machine load average ${report.machine.loadAverageAtStart.join(' ')} → ${report.machine.loadAverageAtEnd.join(' ')}`,
  ].join('\n'),
);
process.stdout.write(`${JSON.stringify({ ...report, ...(fatal !== undefined ? { error: String(fatal) } : {}) })}\n`);
process.exit(exitCode);
