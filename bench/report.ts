import type { BareBullmqResult } from './bare-bullmq.js';
import type { PhaseResult } from './phase.js';
import { round } from './percentiles.js';
import type { BenchSettings } from './settings.js';

export interface RssReading {
  startMb: number;
  beforeMb: number;
  afterMb: number;
  /** process_resident_memory_bytes / heap from /metrics after the sessions, for cross-checking. */
  heapUsedAfterMb: number;
  sessions: number;
}

const perTurn = (value: number, turns: number) => (turns > 0 ? round(value / turns, 3) : null);
const perMessage = (value: number, messages: number) => (messages > 0 ? round(value / messages, 3) : null);

function phaseDetail(phase: PhaseResult | undefined) {
  if (!phase) return undefined;
  return {
    sent: phase.sent,
    answered: phase.answered,
    unanswered: phase.unanswered,
    failedPosts: phase.failedPosts,
    cutShortByTime: phase.cutShortByTime,
    wallSeconds: round(phase.wallSeconds),
    messagesPerSec: round(phase.messagesPerSec, 1),
    ackMs: phase.ack,
    endToEndMs: phase.endToEnd,
    overheadMs: phase.overhead,
    beforeModelMs: phase.beforeModel,
    afterModelMs: phase.afterModel,
    modelMs: phase.model,
    sendLagMs: phase.sendLag.count > 0 ? phase.sendLag : undefined,
    eventLoopDelayMs: { p99: round(phase.eventLoop.p99Ms, 1), max: round(phase.eventLoop.maxMs, 1) },
    turns: phase.counters.turns,
    turnsRetried: phase.counters.turnsRetried,
    turnsFailed: phase.counters.turnsFailed,
    pgWritesPerTurn: perTurn(phase.counters.dbWrite, phase.counters.turns),
    pgReadsPerTurn: perTurn(phase.counters.dbRead, phase.counters.turns),
    pgTransactionStatementsPerTurn: perTurn(phase.counters.dbTransaction, phase.counters.turns),
    cpuMsPerMessage: Object.fromEntries(
      Object.entries(phase.cpuMs).filter(([label]) => label !== 'machine').map(([label, ms]) => [label, perMessage(ms, phase.answered)]),
    ),
    /** Average busy cores during the phase: ours, and everything else on the machine (other work skews the figures). */
    busyCores: Object.fromEntries(Object.entries(phase.cpuMs).map(([label, ms]) => [label, round(ms / phase.cpuWallMs, 2)])),
    otherProcessesBusyCores: round(
      Math.max(
        0,
        (phase.cpuMs.machine ?? 0) -
          Object.entries(phase.cpuMs)
            .filter(([label]) => label !== 'machine' && label !== 'serviceKernel')
            .reduce((sum, [, ms]) => sum + ms, 0),
      ) / phase.cpuWallMs,
      2,
    ),
    redisCommandsPerMessage: perMessage(phase.redis.totalCalls, phase.answered),
    redisTopCommandsPerMessage: Object.fromEntries(phase.redis.top.map((row) => [row.command, perMessage(row.calls, phase.answered)])),
  };
}

/** The one JSON line of CONTRACT §8, with the extra figures and per-phase details. */
export function buildReport(input: {
  settings: BenchSettings;
  bare?: BareBullmqResult;
  throughput?: PhaseResult;
  rss?: { phase: PhaseResult; reading: RssReading };
  latency?: PhaseResult;
  lowRateLatency?: PhaseResult;
  latencyWorkerConcurrency: number;
  split?: PhaseResult;
  warmups: PhaseResult[];
  duplicateAnswers: number;
  machine: { cores: number; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
}) {
  const { settings, bare, throughput, rss, latency, lowRateLatency, split } = input;
  const phases = [throughput, rss?.phase, lowRateLatency, latency, split, ...input.warmups].filter((phase): phase is PhaseResult => phase !== undefined);
  const unanswered = phases.reduce((sum, phase) => sum + phase.unanswered, 0);
  const failedPosts = phases.reduce((sum, phase) => sum + phase.failedPosts, 0);
  const ratio = throughput && bare ? throughput.messagesPerSec / bare.jobsPerSec : null;
  const rssGrowthMb = rss ? rss.reading.afterMb - rss.reading.beforeMb : null;
  const pgWritesPerTurn = throughput ? perTurn(throughput.counters.dbWrite, throughput.counters.turns) : null;
  const pgTransactionStatementsPerTurn = throughput ? perTurn(throughput.counters.dbTransaction, throughput.counters.turns) : null;
  const report = {
    messagesPerSec: throughput ? round(throughput.messagesPerSec, 1) : null,
    ingressAckP50Ms: latency ? latency.ack.p50 : null,
    ingressAckP99Ms: latency ? latency.ack.p99 : null,
    overheadP50Ms: latency ? latency.overhead.p50 : null,
    overheadP99Ms: latency ? latency.overhead.p99 : null,
    bareBullmqJobsPerSec: bare ? round(bare.jobsPerSec, 1) : null,
    ratioToBareBullmq: ratio === null ? null : round(ratio, 3),
    rssMb: rss ? round(rss.reading.afterMb, 1) : null,
    pgWritesPerTurn,
    splitRolesMessagesPerSec: split ? round(split.messagesPerSec, 1) : null,
    rssGrowthMb: rssGrowthMb === null ? null : round(rssGrowthMb, 1),
    lowRateOverheadP50Ms: lowRateLatency ? lowRateLatency.overhead.p50 : null,
    lowRateOverheadP99Ms: lowRateLatency ? lowRateLatency.overhead.p99 : null,
    lowRateIngressAckP99Ms: lowRateLatency ? lowRateLatency.ack.p99 : null,
    turns: phases.reduce((sum, phase) => sum + phase.counters.turns, 0),
    pgTransactionStatementsPerTurn,
    pgReadsPerTurn: throughput ? perTurn(throughput.counters.dbRead, throughput.counters.turns) : null,
    unanswered,
    failedPosts,
    duplicateAnswers: input.duplicateAnswers,
    targets: {
      ratioToBareBullmqAtLeast0_3: ratio === null ? null : ratio >= 0.3,
      ingressAckP99AtMost5Ms: latency ? latency.ack.p99 <= 5 : null,
      overheadP99AtMost20Ms: latency ? latency.overhead.p99 <= 20 : null,
      // without BEGIN/COMMIT every writing statement is its own transaction; with them, at most one pair per turn
      onePgTransactionPerTurn: throughput
        ? throughput.counters.dbTransaction === 0
          ? throughput.counters.dbWrite <= throughput.counters.turns
          : throughput.counters.dbTransaction <= 2 * throughput.counters.turns
        : null,
      rssGrowthAtMost50Mb: rssGrowthMb === null ? null : rssGrowthMb <= 50,
    },
    counts: {
      quick: settings.quick,
      workerConcurrency: settings.workerConcurrency,
      bareJobs: bare?.completed ?? 0,
      warmupMessages: input.warmups.reduce((sum, phase) => sum + phase.sent, 0),
      throughputMessages: throughput?.sent ?? 0,
      maxOutstanding: settings.maxOutstanding,
      dmPool: settings.dmPool,
      groupPool: settings.groupPool,
      groupEvery: settings.groupEvery,
      rssSessions: rss?.reading.sessions ?? 0,
      openLoopRate: settings.openRate,
      openLoopSeconds: settings.openSeconds,
      openLoopMessages: latency?.sent ?? 0,
      slowModelMs: settings.slowModelMs,
      latencyWorkerConcurrency: input.latencyWorkerConcurrency,
      lowOpenLoopRate: settings.lowOpenRate,
      lowOpenLoopSeconds: settings.lowOpenSeconds,
      splitMessages: split?.sent ?? 0,
      splitDmPool: settings.splitDmPool,
    },
    rss: rss
      ? {
          startMb: round(rss.reading.startMb, 1),
          beforeMb: round(rss.reading.beforeMb, 1),
          afterMb: round(rss.reading.afterMb, 1),
          heapUsedAfterMb: round(rss.reading.heapUsedAfterMb, 1),
          newSessionsMessagesPerSec: round(rss.phase.messagesPerSec, 1),
          pgWritesPerTurnNewSessions: perTurn(rss.phase.counters.dbWrite, rss.phase.counters.turns),
        }
      : undefined,
    machine: input.machine,
    bare,
    phases: {
      throughput: phaseDetail(throughput),
      newSessions: phaseDetail(rss?.phase),
      lowRateLatency: phaseDetail(lowRateLatency),
      latency: phaseDetail(latency),
      split: phaseDetail(split),
    },
  };
  return report;
}
