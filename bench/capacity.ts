import { searchCapacity, type CapacitySearch, type StepVerdict } from './capacity-search.js';
import { startDeployment, type Deployment } from './deployment.js';
import type { Harness } from './harness.js';
import { round } from './percentiles.js';
import { otherProcessesBusyCores, cpuPerMessage } from './phase-figures.js';
import type { PhaseResult } from './phase.js';
import { progress } from './progress.js';

export interface CapacityStep extends StepVerdict {
  sent: number;
  answered: number;
  /** Messages sent per second as the load generator managed to send them. */
  offeredRate: number;
  overheadP50Ms: number;
  overheadP99Ms: number;
  ackP99Ms: number;
  /** Sessions added because every returning one was busy (the pool grows in the early steps). */
  newSessions: number;
  serviceCpuMsPerMessage: number | null;
  serviceBusyCores: number;
  otherProcessesBusyCores: number;
}

export interface CapacityResult extends CapacitySearch<CapacityStep> {
  modelMs: number;
  overheadBoundMs: number;
  /** Each step lasts windowSeconds, or longer at low rates: until it has sent minMessages. */
  windowSeconds: number;
  minMessages: number;
  /** Every measured phase (warm-up and steps), for the run's unanswered and failed-POST totals. */
  phases: PhaseResult[];
}

/** Whether one step kept up: everything answered once, the rate really offered, overhead p99 within the bound. */
function judge(phase: PhaseResult, rate: number, duplicates: number, boundMs: number): StepVerdict & { offeredRate: number } {
  // the open loop spaces its sends one interval apart: (sent − 1) intervals between the first and the last
  const offeredRate = phase.sent > 1 && phase.sendSeconds > 0 ? (phase.sent - 1) / phase.sendSeconds : rate;
  const fail = (reason: string) => ({ passed: false, reason, offeredRate });
  if (phase.unanswered > 0) return fail(`${phase.unanswered} messages not answered`);
  if (phase.failedPosts > 0) return fail(`${phase.failedPosts} webhook POSTs failed`);
  if (duplicates > 0) return fail(`${duplicates} messages answered twice`);
  if (offeredRate < 0.9 * rate) return fail(`the load generator fell behind (send lag p99 ${phase.sendLag.p99} ms)`);
  if (!(phase.overhead.p99 <= boundMs)) return fail(`overhead p99 ${phase.overhead.p99} ms > ${boundMs} ms`);
  return { passed: true, offeredRate };
}

/**
 * `capacityMessagesPerSec2sModel`: one ROLE=all process with the service's defaults (no WORKER_CONCURRENCY), a model
 * that takes `capacityModelMs`, open-loop DMs from returning sessions (none with a message outstanding, so nothing is
 * collected behind a running turn) at increasing rates; the highest rate whose overhead p99 stays within the bound.
 */
export async function runCapacity(harness: Harness, databaseUrl: string, redisUrl: string): Promise<CapacityResult> {
  const deployment = harness.track(
    await startDeployment({ name: 'capacity', roles: ['all'], prefix: harness.prefixFor('capacity'), databaseUrl, redisUrl, extraEnv: harness.extraEnv('capacity') }),
  );
  try {
    return await capacitySearch(harness, deployment, { label: 'capacity', firstUserId: 4_000_000 });
  } finally {
    await harness.stop(deployment);
  }
}

/**
 * The capacity search on a running deployment (the service's, or a peer's: `answerTimeoutMs` then bounds the wait
 * for its answers, as its losses are its own figure). Leaves the deployment's model at 0 ms.
 */
export async function capacitySearch(
  harness: Harness,
  deployment: Deployment,
  options: { label: string; firstUserId: number; answerTimeoutMs?: number },
): Promise<CapacityResult> {
  const { settings } = harness;
  const { label } = options;
  const phases: PhaseResult[] = [];
  const sessions = harness.pool(deployment, { dmUsers: settings.capacityWarmupSessions, firstUserId: options.firstUserId, groups: 0, groupEvery: 0 });
  phases.push(
    await harness.closedPhase(deployment, `${label} warm-up (model 0 ms)`, sessions, settings.capacityWarmupSessions, 60_000, {
      ...(options.answerTimeoutMs === undefined ? {} : { answerTimeoutMs: options.answerTimeoutMs }),
    }),
  );
  deployment.openai.settings.latencyMs = settings.capacityModelMs;
  const source = { next: () => sessions.takeOrAdd() };
  try {
    const search = await searchCapacity<CapacityStep>({
      rates: settings.capacityRates,
      deadline: performance.now() + settings.capacityTimeLimitMs,
      tryRate: async (rate) => {
        // at least minMessages, but a bisection below the first rate lasts no longer than the first step
        const seconds = Math.max(settings.capacitySeconds, settings.capacityMinMessages / Math.max(rate, settings.capacityRates[0]!));
        const addedBefore = sessions.added;
        const duplicatesBefore = deployment.tracker.duplicateAnswers;
        const phase = await harness.openPhase(deployment, `${label}: ${rate} msg/s for ${round(seconds, 1)} s, model ${settings.capacityModelMs} ms`, source, rate, seconds, options.answerTimeoutMs);
        phases.push(phase);
        const verdict = judge(phase, rate, deployment.tracker.duplicateAnswers - duplicatesBefore, settings.capacityOverheadP99Ms);
        progress(`${label}: ${rate} msg/s ${verdict.passed ? 'kept up' : `did not keep up: ${verdict.reason}`}`);
        const serviceMs = phase.cpuMs.service ?? 0;
        return {
          ...verdict,
          offeredRate: round(verdict.offeredRate, 1),
          sent: phase.sent,
          answered: phase.answered,
          overheadP50Ms: phase.overhead.p50,
          overheadP99Ms: phase.overhead.p99,
          ackP99Ms: phase.ack.p99,
          newSessions: sessions.added - addedBefore,
          serviceCpuMsPerMessage: cpuPerMessage(phase).service,
          serviceBusyCores: round(serviceMs / phase.cpuWallMs, 2),
          otherProcessesBusyCores: otherProcessesBusyCores(phase),
        };
      },
    });
    progress(`${label}: ${search.capacity} msg/s with a ${settings.capacityModelMs} ms model (stopped by ${search.stoppedBy})`);
    return { ...search, modelMs: settings.capacityModelMs, overheadBoundMs: settings.capacityOverheadP99Ms, windowSeconds: settings.capacitySeconds, minMessages: settings.capacityMinMessages, phases };
  } finally {
    deployment.openai.settings.latencyMs = 0;
  }
}
