import type { PeerResult } from './peer.js';
import { otherProcessesBusyCores } from './phase-figures.js';
import type { PhaseResult } from './phase.js';
import type { buildReport } from './report.js';
import type { BenchSettings } from './settings.js';

type Report = ReturnType<typeof buildReport>;

const verdict = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : 'MISSED');

/** The run's figures for a person, on stderr before the JSON line. */
export function summary(report: Report, settings: BenchSettings, phases: { throughput?: PhaseResult; peer?: PeerResult }): string {
  const { targets } = report;
  const peer = report.peers ? Object.values(report.peers)[0] : undefined;
  const busy = (phase: PhaseResult | undefined) => (phase ? `, other processes busy ${otherProcessesBusyCores(phase)} cores` : '');
  return [
    'summary:',
    `  messagesPerSec ${report.messagesPerSec} vs bare BullMQ ${report.bareBullmqJobsPerSec} jobs/s: ratio ${report.ratioToBareBullmq} (target >= 0.3: ${verdict(targets.ratioToBareBullmqAtLeast0_3)})${busy(phases.throughput)}`,
    `  per message at model 0 ms: service CPU ${report.serviceCpuMsPerMessage} ms (<= 1.3: ${verdict(targets.serviceCpuMsPerMessageAtMost1_3)}), ` +
      `service + Redis + PostgreSQL ${report.totalCpuMsPerMessage} ms (<= 2: ${verdict(targets.totalCpuMsPerMessageAtMost2)}), ` +
      `Redis commands ${report.redisCommandsPerMessage} (<= 45: ${verdict(targets.redisCommandsPerMessageAtMost45)})`,
    `  peer ${phases.peer ? Object.entries(phases.peer.packages).map(([name, version]) => `${name}@${version}`).join(' + ') : '(not run)'}: ` +
      (peer
        ? `${peer.messagesPerSec} msg/s, CPU ${peer.serviceCpuMsPerMessage} ms/message, idle ${peer.idleRssMb} MB, lost ${peer.lost}, duplicated ${peer.duplicated}${busy(phases.peer?.phase)}; ` +
          `ours ahead on msg/s: ${verdict(targets.aheadOfPeerOnMessagesPerSec)}, on CPU: ${verdict(targets.aheadOfPeerOnCpuPerMessage)}`
        : ''),
    `  at ${settings.openRate} msg/s, model ${settings.slowModelMs} ms: ack p50/p99 ${report.ingressAckP50Ms}/${report.ingressAckP99Ms} ms (p99 <= 5: ${verdict(targets.ingressAckP99AtMost5Ms)}; the service's side p99 ${report.ingressAckServerP99Ms} ms), ` +
      `overhead p50/p99 ${report.overheadP50Ms}/${report.overheadP99Ms} ms (p99 <= 20: ${verdict(targets.overheadP99AtMost20Ms)})`,
    `  at ${settings.lowOpenRate} msg/s: ack p99 ${report.lowRateIngressAckP99Ms} ms (the service's side ${report.lowRateIngressAckServerP99Ms} ms), overhead p50/p99 ${report.lowRateOverheadP50Ms}/${report.lowRateOverheadP99Ms} ms`,
    `  at the model's pace, ours vs the peer: at ${settings.openRate} msg/s service CPU ${report.latencyServiceCpuMsPerMessage} vs ${peer?.latencyServiceCpuMsPerMessage ?? '-'} ms/message ` +
      `(<= 1.5x: ${verdict(targets.latencyServiceCpuAtMost1_5xPeer)}), ack p99 ${report.ingressAckP99Ms} vs ${peer?.ingressAckP99Ms ?? '-'} ms (<= 10: ${verdict(targets.ingressAckP99AtMost10Ms)}), ` +
      `overhead p99 ${report.overheadP99Ms} vs ${peer?.overheadP99Ms ?? '-'} ms (<= 25: ${verdict(targets.overheadP99AtMost25Ms)}); ` +
      `at ${settings.lowOpenRate} msg/s total CPU ${report.lowRateTotalCpuMsPerMessage} vs ${peer?.lowRateTotalCpuMsPerMessage ?? '-'} ms/message (<= 4: ${verdict(targets.lowRateTotalCpuMsPerMessageAtMost4)}), ` +
      `overhead p99 ${report.lowRateOverheadP99Ms} vs ${peer?.lowRateOverheadP99Ms ?? '-'} ms; capacity (2 s model) ${report.capacityMessagesPerSec2sModel} vs ${peer?.capacityMessagesPerSec2sModel ?? '-'} msg/s`,
    `  capacity with a ${settings.capacityModelMs} ms model (overhead p99 <= ${settings.capacityOverheadP99Ms} ms): ${report.capacityMessagesPerSec2sModel} msg/s` +
      `${report.capacity ? ` (stopped by ${report.capacity.stoppedBy}; steps ${report.capacity.steps.map((step) => `${step.rate}${step.passed ? '✓' : '✗'}`).join(' ')})` : ''} ` +
      `(>= 300: ${verdict(targets.capacityAtLeast300)})`,
    `  PostgreSQL per turn: ${report.pgWritesPerTurn} writes, ${report.pgTransactionStatementsPerTurn} BEGIN/COMMIT, ${report.pgReadsPerTurn} reads ` +
      `(one transaction: ${verdict(targets.onePgTransactionPerTurn)}, reads <= 1: ${verdict(targets.pgReadsPerTurnAtMost1)})`,
    `  RSS ${report.rssMb} MB (<= 250: ${verdict(targets.rssAfterLoadAtMost250Mb)}), growth ${report.rssGrowthMb} MB over ${report.counts.rssSessions} new sessions (<= 50: ${verdict(targets.rssGrowthAtMost50Mb)})`,
    `  idle: ${report.idleRssMb} MB with all three channels (<= 110: ${verdict(targets.idleRssAtMost110Mb)}), ` +
      `embedded default install ${report.idleRssEmbeddedMb} MB (<= 250: ${verdict(targets.idleRssEmbeddedAtMost250Mb)}), ` +
      `start-up ${report.startupMs} ms (<= 500: ${verdict(targets.startupAtMost500Ms)})`,
    `  gateway + 2 workers: ${report.splitRolesMessagesPerSec} msg/s; on a three-master Redis Cluster: ${report.clusterMessagesPerSec} msg/s` +
      `${'clusterError' in report ? ` (${String(report.clusterError)})` : ''}`,
    `  machine load average ${report.machine.loadAverageAtStart.join(' ')} → ${report.machine.loadAverageAtEnd.join(' ')}` +
      (settings.quick ? '; BENCH_QUICK=1: indicative only' : ''),
  ].join('\n');
}
