import type { PhaseResult } from './phase.js';
import { round } from './percentiles.js';

export const perTurn = (value: number, turns: number) => (turns > 0 ? round(value / turns, 3) : null);
export const perMessage = (value: number, messages: number) => (messages > 0 ? round(value / messages, 3) : null);

/** A probe label that is a service (or peer) process itself, not its kernel part, the bench, Redis, PostgreSQL or the machine. */
const isServiceLabel = (label: string) =>
  !label.endsWith('Kernel') && label !== 'bench' && label !== 'postgres' && label !== 'machine' && !/^redis\d*$/.test(label);

/**
 * CPU ms per answered message of the phase: `service` (every service or peer process, user + system), `total`
 * (service + Redis + our database's PostgreSQL backends), and the Redis and PostgreSQL parts.
 */
export function cpuPerMessage(phase: PhaseResult) {
  const sum = (keep: (label: string) => boolean) => Object.entries(phase.cpuMs).reduce((total, [label, ms]) => total + (keep(label) ? ms : 0), 0);
  const service = sum(isServiceLabel);
  const redis = sum((label) => /^redis\d*$/.test(label));
  const postgres = sum((label) => label === 'postgres');
  return {
    service: perMessage(service, phase.answered),
    total: perMessage(service + redis + postgres, phase.answered),
    redis: perMessage(redis, phase.answered),
    postgres: perMessage(postgres, phase.answered),
  };
}

/** Average busy cores of processes that are not ours (other work on the machine skews every figure). */
export function otherProcessesBusyCores(phase: PhaseResult): number {
  const ours = Object.entries(phase.cpuMs)
    .filter(([label]) => label !== 'machine' && !label.endsWith('Kernel'))
    .reduce((sum, [, ms]) => sum + ms, 0);
  return round(Math.max(0, (phase.cpuMs.machine ?? 0) - ours) / phase.cpuWallMs, 2);
}

export function phaseDetail(phase: PhaseResult | undefined) {
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
    /** Service (all its processes), total (service + Redis + PostgreSQL), Redis and PostgreSQL CPU ms per message. */
    cpuMsPerMessageSummary: cpuPerMessage(phase),
    cpuMsPerMessage: Object.fromEntries(
      Object.entries(phase.cpuMs).filter(([label]) => label !== 'machine').map(([label, ms]) => [label, perMessage(ms, phase.answered)]),
    ),
    /** Average busy cores during the phase: ours, and everything else on the machine (other work skews the figures). */
    busyCores: Object.fromEntries(Object.entries(phase.cpuMs).map(([label, ms]) => [label, round(ms / phase.cpuWallMs, 2)])),
    otherProcessesBusyCores: otherProcessesBusyCores(phase),
    redisCommandsPerMessage: perMessage(phase.redis.totalCalls, phase.answered),
    /** Context switches of the service's (or peer's) threads per message: how often a message wakes it. */
    wakeupsPerMessage: perMessage(phase.wakeups, phase.answered),
    redisTopCommandsPerMessage: Object.fromEntries(phase.redis.top.map((row) => [row.command, perMessage(row.calls, phase.answered)])),
  };
}

