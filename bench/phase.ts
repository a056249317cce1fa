import { availableParallelism } from 'node:os';
import type { Redis } from 'ioredis';
import type { Deployment } from './deployment.js';
import type { LoadResult } from './load.js';
import { summarize, type LatencySummary } from './percentiles.js';
import { contextSwitches, cpuWindow, type CpuProbe } from './process-stats.js';
import { progress, sleep } from './progress.js';
import { bucketsDelta, bucketsOf, quantileOf, shareAtOrBelow, type Buckets } from './histogram.js';
import { counterDelta, pipelineCounters, scrape, type EventLoopDelay, type PipelineCounters } from './prometheus.js';
import { commandDelta, commandStats, type CommandDelta } from './redis-stats.js';
import type { TrackedMessage } from './tracker.js';

export interface PhaseResult {
  label: string;
  sent: number;
  answered: number;
  unanswered: number;
  failedPosts: number;
  cutShortByTime: boolean;
  /** Seconds the load took to send its messages. */
  sendSeconds: number;
  /** Seconds from the first POST to the last answer. */
  wallSeconds: number;
  messagesPerSec: number;
  ack: LatencySummary;
  /**
   * The service's own side of the ack (`bot_webhook_ack_seconds`: from the request read to the answer written), in ms
   * from its buckets: what the client's figure holds beyond it is the network and both sides' scheduling.
   */
  serverAck: ServerAck;
  /** POST sent → matching sendMessage, minus the model's own time for the message. */
  overhead: LatencySummary;
  /** The overhead's two halves: POST sent → model request received, and model response ended → sendMessage. */
  beforeModel: LatencySummary;
  afterModel: LatencySummary;
  endToEnd: LatencySummary;
  model: LatencySummary;
  sendLag: LatencySummary;
  counters: PipelineCounters;
  /** The service processes' event-loop delay during the phase (prom-client, 100 ms resolution), worst process. */
  eventLoop: EventLoopDelay;
  cpuMs: Record<string, number>;
  /** Context switches of the service (or peer) processes' threads during the CPU window: their wake-ups. */
  wakeups: number;
  /** Wall-clock ms of the CPU window (the phase plus waiting for its answers). */
  cpuWallMs: number;
  redis: CommandDelta;
}

export interface ServerAck {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  /** The share answered within 5 ms (a bucket bound). */
  within5Ms: number | null;
}

const WEBHOOK_ACK = 'bot_webhook_ack_seconds';

async function webhookAckBuckets(urls: string[]): Promise<Buckets> {
  return bucketsOf(await Promise.all(urls.map(scrape)), WEBHOOK_ACK);
}

function serverAckOf(buckets: Buckets): ServerAck {
  const ms = (seconds: number | null) => (seconds === null ? null : Math.round(seconds * 10_000) / 10);
  const share = shareAtOrBelow(buckets, 0.005);
  return {
    count: buckets.counts.at(-1) ?? 0,
    p50Ms: ms(quantileOf(buckets, 0.5)),
    p99Ms: ms(quantileOf(buckets, 0.99)),
    within5Ms: share === null ? null : Math.round(share * 1000) / 1000,
  };
}

/**
 * `BENCH_SLOWEST=N`: the phase's N messages with the most overhead, each with its session, its POST's ack and the
 * overhead's two halves: whether the slow ones share something (new sessions, the end of a step) shows at a glance.
 */
function printSlowest(label: string, withModel: TrackedMessage[]): void {
  const count = Number(process.env.BENCH_SLOWEST ?? 0);
  if (!(count > 0)) return;
  const overheadOf = (message: TrackedMessage) => message.answeredAt! - message.postAt - message.modelMs;
  const slowest = [...withModel].sort((a, b) => overheadOf(b) - overheadOf(a)).slice(0, count);
  for (const message of slowest) {
    progress(
      `${label}: slow #${message.seq} (${message.session}): overhead ${overheadOf(message)} ms, ack ${message.ackMs?.toFixed(1) ?? '-'} ms, ` +
        `before the model ${message.modelFirstReceivedAt! - message.postAt} ms, after it ${message.answeredAt! - message.modelLastEndedAt!} ms`,
    );
  }
}

/**
 * Scrapes until two scrapes agree (turns flush to PostgreSQL just after their answer is sent). The event-loop delay
 * is the first scrape's: it covers the time since the scrape before.
 */
async function settledCounters(urls: string[]): Promise<PipelineCounters & { eventLoop: EventLoopDelay }> {
  const first = await pipelineCounters(urls);
  const counters = (value: PipelineCounters & { eventLoop: EventLoopDelay }) => JSON.stringify({ ...value, eventLoop: undefined });
  let previous = first;
  for (let attempt = 0; attempt < 25; attempt++) {
    await sleep(200);
    const current = await pipelineCounters(urls);
    if (counters(current) === counters(previous)) return { ...current, eventLoop: first.eventLoop };
    previous = current;
  }
  return { ...previous, eventLoop: first.eventLoop };
}

/** Runs one load against a deployment and measures it: latencies from the tracker, counters from /metrics, CPU, Redis. */
export async function measurePhase(options: {
  label: string;
  deployment: Deployment;
  /** The Redis servers whose INFO commandstats count (one, or every master of a cluster). */
  redisServers: Redis[];
  cpuProbes: CpuProbe[];
  answerTimeoutMs: number;
  drive: () => Promise<LoadResult>;
}): Promise<PhaseResult> {
  const { deployment, label } = options;
  const { tracker } = deployment;
  const countersBefore = await settledCounters(deployment.urls);
  const ackBefore = await webhookAckBuckets(deployment.urls);
  const redisBefore = await commandStats(options.redisServers);
  const cpu = cpuWindow(options.cpuProbes);
  const switches = () => deployment.children.reduce((sum, child) => sum + contextSwitches(child.pid), 0);
  const switchesBefore = switches();
  progress(`${label}: running`);
  const load = await options.drive();
  progress(`${label}: sent ${load.seqs.length} in ${load.sendSeconds.toFixed(1)} s; waiting for the answers`);
  const unanswered = await tracker.waitAnswered(load.seqs, options.answerTimeoutMs);
  const countersAfter = await settledCounters(deployment.urls);
  const ackAfter = await webhookAckBuckets(deployment.urls);
  const { cpuMs, wallMs: cpuWallMs } = cpu.stop();
  const wakeups = switches() - switchesBefore;
  const redis = commandDelta(await commandStats(options.redisServers), redisBefore);
  await sleep(100);
  tracker.collectModelTimes();

  const messages = load.seqs.map((seq) => tracker.messages.get(seq)!);
  const answered = messages.filter((message) => message.answeredAt !== undefined);
  const firstPostAt = messages.reduce((min, message) => Math.min(min, message.postAt), Infinity);
  const lastAnswerAt = answered.reduce((max, message) => Math.max(max, message.answeredAt!), -Infinity);
  const wallSeconds = (lastAnswerAt - firstPostAt) / 1000;
  const withModel = answered.filter((message) => message.modelRequests > 0);
  const result: PhaseResult = {
    label,
    sent: messages.length,
    answered: answered.length,
    unanswered,
    failedPosts: load.failedPosts,
    cutShortByTime: load.cutShortByTime,
    sendSeconds: load.sendSeconds,
    wallSeconds,
    messagesPerSec: answered.length > 0 ? answered.length / wallSeconds : 0,
    ack: summarize(messages.flatMap((message) => (message.ackMs === undefined ? [] : [message.ackMs]))),
    serverAck: serverAckOf(bucketsDelta(ackAfter, ackBefore)),
    overhead: summarize(withModel.map((message) => message.answeredAt! - message.postAt - message.modelMs)),
    beforeModel: summarize(withModel.map((message) => message.modelFirstReceivedAt! - message.postAt)),
    afterModel: summarize(withModel.map((message) => message.answeredAt! - message.modelLastEndedAt!)),
    endToEnd: summarize(answered.map((message) => message.answeredAt! - message.postAt)),
    model: summarize(withModel.map((message) => message.modelMs)),
    sendLag: summarize(load.sendLagMs),
    counters: counterDelta(countersAfter, countersBefore),
    eventLoop: countersAfter.eventLoop,
    cpuMs,
    wakeups,
    cpuWallMs,
    redis,
  };
  progress(
    `${label}: ${result.answered}/${result.sent} answered in ${wallSeconds.toFixed(1)} s = ${result.messagesPerSec.toFixed(1)} msg/s; ` +
      `ack p50/p99 ${result.ack.p50}/${result.ack.p99} ms (the service's side ${result.serverAck.p50Ms}/${result.serverAck.p99Ms} ms, ` +
      `${result.serverAck.within5Ms === null ? '-' : Math.round(result.serverAck.within5Ms * 1000) / 10} % within 5 ms); e2e p50/p99 ${result.endToEnd.p50}/${result.endToEnd.p99} ms; ` +
      `overhead p50/p99 ${result.overhead.p50}/${result.overhead.p99} ms (before the model ${result.beforeModel.p50}/${result.beforeModel.p99}, ` +
      `after it ${result.afterModel.p50}/${result.afterModel.p99}); turns ${result.counters.turns}, ` +
      `pg writes ${result.counters.dbWrite}, reads ${result.counters.dbRead}, tx ${result.counters.dbTransaction}; ` +
      `service event-loop delay p99/max ${result.eventLoop.p99Ms.toFixed(1)}/${result.eventLoop.maxMs.toFixed(1)} ms; ` +
      `per message: ${result.answered > 0 ? (wakeups / result.answered).toFixed(1) : '-'} wake-ups (context switches), ${result.answered > 0 ? (redis.totalCalls / result.answered).toFixed(1) : '-'} Redis commands`,
  );
  const cores = (ms: number | undefined) => ((ms ?? 0) / cpuWallMs).toFixed(2);
  const ours = Object.entries(cpuMs).filter(([label]) => label !== 'machine' && !label.endsWith('Kernel'));
  const others = (cpuMs.machine ?? 0) - ours.reduce((sum, [, ms]) => sum + ms, 0);
  printSlowest(label, withModel);
  progress(
    `${label}: CPU in cores: ${ours.map(([name, ms]) => `${name} ${cores(ms)}`).join(', ')}, ` +
      `other processes ${cores(Math.max(0, others))}, whole machine ${cores(cpuMs.machine)} of ${availableParallelism()}`,
  );
  if (unanswered > 0) progress(`${label}: ${unanswered} messages NOT answered within ${options.answerTimeoutMs} ms`);
  return result;
}
