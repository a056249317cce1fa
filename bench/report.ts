import type { BareBullmqResult } from './bare-bullmq.js';
import type { CapacityResult } from './capacity.js';
import type { ClusterResult } from './cluster.js';
import type { IdleReading } from './idle.js';
import { peerPhases, type PeerResult } from './peer.js';
import type { PhaseResult } from './phase.js';
import { cpuPerMessage, perMessage, perTurn, phaseDetail } from './phase-figures.js';
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

/** The one JSON line of CONTRACT §8, with the extra figures and per-phase details. */
export function buildReport(input: {
  settings: BenchSettings;
  bare?: BareBullmqResult;
  throughput?: PhaseResult;
  rss?: { phase: PhaseResult; reading: RssReading };
  latency?: PhaseResult;
  lowRateLatency?: PhaseResult;
  latencyWorkerConcurrency: number | undefined;
  split?: PhaseResult;
  capacity?: CapacityResult;
  idle?: IdleReading;
  startup?: { medianMs: number; samplesMs: number[] };
  embedded?: IdleReading;
  peer?: PeerResult;
  cluster?: ClusterResult;
  warmups: PhaseResult[];
  duplicateAnswers: number;
  machine: { cores: number; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
}) {
  const { settings, bare, throughput, rss, latency, lowRateLatency, split, capacity, idle, embedded, peer, cluster } = input;
  // the service's phases: a peer's losses are its own figure
  const phases = [throughput, rss?.phase, lowRateLatency, latency, split, ...(capacity?.phases ?? []), cluster?.warmup, cluster?.phase, ...input.warmups].filter(
    (phase): phase is PhaseResult => phase !== undefined,
  );
  const cpu = throughput ? cpuPerMessage(throughput) : undefined;
  const peerCpu = peer ? cpuPerMessage(peer.phase) : undefined;
  // at the model's pace (issue 54): ours and the peer's, same loads, same run
  const latencyCpu = latency ? cpuPerMessage(latency) : undefined;
  const lowRateCpu = lowRateLatency ? cpuPerMessage(lowRateLatency) : undefined;
  const peerLatencyCpu = peer?.latency ? cpuPerMessage(peer.latency) : undefined;
  const peerLowRateCpu = peer?.lowRateLatency ? cpuPerMessage(peer.lowRateLatency) : undefined;
  const peerLost = peer ? peerPhases(peer).reduce((sum, phase) => sum + phase.unanswered, 0) : 0;
  const peerFailedPosts = peer ? peerPhases(peer).reduce((sum, phase) => sum + phase.failedPosts, 0) : 0;
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
    ingressAckServerP99Ms: latency ? latency.serverAck.p99Ms : null,
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
    lowRateIngressAckServerP99Ms: lowRateLatency ? lowRateLatency.serverAck.p99Ms : null,
    latencyServiceCpuMsPerMessage: latencyCpu?.service ?? null,
    latencyTotalCpuMsPerMessage: latencyCpu?.total ?? null,
    lowRateServiceCpuMsPerMessage: lowRateCpu?.service ?? null,
    lowRateTotalCpuMsPerMessage: lowRateCpu?.total ?? null,
    latencyWakeupsPerMessage: latency ? perMessage(latency.wakeups, latency.answered) : null,
    lowRateWakeupsPerMessage: lowRateLatency ? perMessage(lowRateLatency.wakeups, lowRateLatency.answered) : null,
    turns: phases.reduce((sum, phase) => sum + phase.counters.turns, 0),
    pgTransactionStatementsPerTurn,
    pgReadsPerTurn: throughput ? perTurn(throughput.counters.dbRead, throughput.counters.turns) : null,
    serviceCpuMsPerMessage: cpu?.service ?? null,
    totalCpuMsPerMessage: cpu?.total ?? null,
    redisCommandsPerMessage: throughput ? perMessage(throughput.redis.totalCalls, throughput.answered) : null,
    capacityMessagesPerSec2sModel: capacity ? capacity.capacity : null,
    idleRssMb: idle ? idle.rssMb : null,
    idleRssEmbeddedMb: embedded ? embedded.treeRssMb : null,
    startupMs: input.startup ? input.startup.medianMs : null,
    clusterMessagesPerSec: cluster?.phase ? round(cluster.phase.messagesPerSec, 1) : null,
    ...(cluster?.error !== undefined ? { clusterError: cluster.error } : {}),
    peers: peer
      ? {
          [peer.name]: {
            packages: peer.packages,
            messagesPerSec: round(peer.phase.messagesPerSec, 1),
            serviceCpuMsPerMessage: peerCpu!.service,
            totalCpuMsPerMessage: peerCpu!.total,
            redisCommandsPerMessage: perMessage(peer.phase.redis.totalCalls, peer.phase.answered),
            idleRssMb: round(peer.idleRssMb, 1),
            rssAfterMb: round(peer.rssAfterMb, 1),
            startupMs: round(peer.readyMs, 0),
            ingressAckP50Ms: peer.latency ? peer.latency.ack.p50 : null,
            ingressAckP99Ms: peer.latency ? peer.latency.ack.p99 : null,
            overheadP50Ms: peer.latency ? peer.latency.overhead.p50 : null,
            overheadP99Ms: peer.latency ? peer.latency.overhead.p99 : null,
            latencyServiceCpuMsPerMessage: peerLatencyCpu?.service ?? null,
            latencyTotalCpuMsPerMessage: peerLatencyCpu?.total ?? null,
            lowRateOverheadP50Ms: peer.lowRateLatency ? peer.lowRateLatency.overhead.p50 : null,
            lowRateOverheadP99Ms: peer.lowRateLatency ? peer.lowRateLatency.overhead.p99 : null,
            lowRateIngressAckP99Ms: peer.lowRateLatency ? peer.lowRateLatency.ack.p99 : null,
            lowRateServiceCpuMsPerMessage: peerLowRateCpu?.service ?? null,
            lowRateTotalCpuMsPerMessage: peerLowRateCpu?.total ?? null,
            latencyWakeupsPerMessage: peer.latency ? perMessage(peer.latency.wakeups, peer.latency.answered) : null,
            lowRateWakeupsPerMessage: peer.lowRateLatency ? perMessage(peer.lowRateLatency.wakeups, peer.lowRateLatency.answered) : null,
            capacityMessagesPerSec2sModel: peer.capacity ? peer.capacity.capacity : null,
            capacity: peer.capacity ? { stoppedBy: peer.capacity.stoppedBy, steps: peer.capacity.steps } : undefined,
            lost: peerLost,
            duplicated: peer.duplicated,
            failedPosts: peerFailedPosts,
          },
        }
      : null,
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
      // issues 23 and 25
      serviceCpuMsPerMessageAtMost1_3: cpu?.service == null ? null : cpu.service <= 1.3,
      totalCpuMsPerMessageAtMost2: cpu?.total == null ? null : cpu.total <= 2,
      redisCommandsPerMessageAtMost45: throughput ? throughput.redis.totalCalls <= 45 * throughput.answered : null,
      pgReadsPerTurnAtMost1: throughput ? throughput.counters.dbRead <= throughput.counters.turns : null,
      capacityAtLeast300: capacity ? capacity.capacity >= 300 : null,
      aheadOfPeerOnMessagesPerSec: throughput && peer ? throughput.messagesPerSec > peer.phase.messagesPerSec : null,
      aheadOfPeerOnCpuPerMessage: cpu?.service != null && peerCpu?.service != null ? cpu.service < peerCpu.service : null,
      idleRssAtMost110Mb: idle ? idle.rssMb <= 110 : null,
      idleRssEmbeddedAtMost250Mb: embedded ? embedded.treeRssMb <= 250 : null,
      rssAfterLoadAtMost250Mb: rss ? rss.reading.afterMb <= 250 : null,
      startupAtMost500Ms: input.startup ? input.startup.medianMs <= 500 : null,
      // issue 54: at the model's pace (200 msg/s and 40 msg/s, model 500 ms), the peer in the same run
      latencyServiceCpuAtMost1_5xPeer: latencyCpu?.service != null && peerLatencyCpu?.service != null ? latencyCpu.service <= 1.5 * peerLatencyCpu.service : null,
      ingressAckP99AtMost10Ms: latency ? latency.ack.p99 <= 10 : null,
      overheadP99AtMost25Ms: latency ? latency.overhead.p99 <= 25 : null,
      lowRateTotalCpuMsPerMessageAtMost4: lowRateCpu?.total == null ? null : lowRateCpu.total <= 4,
    },
    counts: {
      quick: settings.quick,
      workerConcurrency: settings.workerConcurrency ?? 'service default',
      bareConcurrency: settings.bareConcurrency,
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
      latencyWorkerConcurrency: input.latencyWorkerConcurrency ?? 'service default',
      lowOpenLoopRate: settings.lowOpenRate,
      lowOpenLoopSeconds: settings.lowOpenSeconds,
      splitMessages: split?.sent ?? 0,
      splitDmPool: settings.splitDmPool,
      capacityRates: settings.capacityRates,
      capacitySeconds: settings.capacitySeconds,
      capacityMinMessages: settings.capacityMinMessages,
      capacityModelMs: settings.capacityModelMs,
      capacityOverheadP99Ms: settings.capacityOverheadP99Ms,
      idleSeconds: settings.idleSeconds,
      startupRuns: input.startup?.samplesMs.length ?? 0,
      peerMessages: peer?.phase.sent ?? 0,
      clusterMessages: cluster?.phase?.sent ?? 0,
    },
    capacity: capacity
      ? {
          messagesPerSec: capacity.capacity,
          stoppedBy: capacity.stoppedBy,
          modelMs: capacity.modelMs,
          overheadBoundMs: capacity.overheadBoundMs,
          windowSeconds: capacity.windowSeconds,
          minMessages: capacity.minMessages,
          steps: capacity.steps,
        }
      : undefined,
    idle: idle ? { ...idle, startupSamplesMs: input.startup?.samplesMs } : input.startup ? { startupSamplesMs: input.startup.samplesMs } : undefined,
    embedded,
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
      peer: phaseDetail(peer?.phase),
      peerLowRateLatency: phaseDetail(peer?.lowRateLatency),
      peerLatency: phaseDetail(peer?.latency),
      cluster: phaseDetail(cluster?.phase),
    },
  };
  return report;
}
