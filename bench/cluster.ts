import { Redis } from 'ioredis';
import { startRedisCluster } from '../test/support/redis-cluster.js';
import { startDeployment, type Deployment } from './deployment.js';
import type { Harness } from './harness.js';
import type { PhaseResult } from './phase.js';
import { progress } from './progress.js';

export interface ClusterResult {
  /** Undefined when the service could not start on the cluster (see `error`). */
  phase?: PhaseResult;
  warmup?: PhaseResult;
  error?: string;
  masters: number;
}

/** A start-up failure in one line: what the bench saw and the service's own message, without stack frames. */
function startError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('at '));
  return lines.slice(0, 3).join(' ').slice(0, 400);
}

/**
 * `clusterMessagesPerSec`: gateway + 2 workers with REDIS_CLUSTER=true and REDIS_URL = the three seeds of a local
 * three-master Redis Cluster (test/support/redis-cluster.ts), closed loop as in (c). A service that cannot start on
 * a cluster gives `error` and no figure.
 */
export async function runCluster(harness: Harness, databaseUrl: string): Promise<ClusterResult> {
  const { settings } = harness;
  const cluster = await startRedisCluster();
  const servers = cluster.nodes.map((node) => new Redis(node.url, { maxRetriesPerRequest: 1 }));
  const masters = cluster.nodes.length;
  progress(`cluster: ${masters} masters at ${cluster.url}`);
  let deployment: Deployment | undefined;
  try {
    try {
      deployment = harness.track(
        await startDeployment({
          name: 'cluster',
          roles: ['gateway', 'worker', 'worker'],
          prefix: harness.prefixFor('cluster'),
          databaseUrl,
          redisUrl: cluster.url,
          workerConcurrency: settings.workerConcurrency,
          extraEnv: { REDIS_CLUSTER: 'true', ...harness.extraEnv('cluster') },
        }),
      );
    } catch (error) {
      const reason = startError(error);
      progress(`cluster: the service did not start on the Redis Cluster: ${reason}`);
      return { error: reason, masters };
    }
    const redis = { servers, pids: cluster.pids() };
    const sessions = harness.pool(deployment, { dmUsers: settings.splitDmPool, firstUserId: 5_000_000 });
    const warmup = await harness.closedPhase(deployment, 'cluster warm-up (gateway + 2 workers)', sessions, settings.splitDmPool + settings.groupPool, 60_000, { redis });
    const phase = await harness.closedPhase(deployment, `cluster throughput, gateway + 2 workers on ${masters} masters, model 0 ms`, sessions, settings.clusterMessages, settings.clusterTimeLimitMs, {
      redis,
    });
    return { phase, warmup, masters };
  } finally {
    // the service goes before the cluster it runs on
    if (deployment) await harness.stop(deployment).catch((error: unknown) => progress(`stopping the cluster deployment: ${String(error)}`));
    for (const server of servers) server.disconnect();
    await cluster.stop();
  }
}
