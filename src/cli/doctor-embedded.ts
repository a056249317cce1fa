import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { describeHolder, type LockHolder } from '../lifecycle/data-dir-lock.js';
import { redisServerVersion, startEmbeddedRedis } from '../queue/index.js';
import { createRedisClient, waitUntilReady } from '../redis/index.js';

/**
 * What `doctor` checks of the embedded parts (REDIS_URL or DATABASE_URL unset). With a service running in
 * DATA_DIR it opens nothing of that service's: it asks the service's own `/readyz` instead.
 */

export interface Readiness {
  ready: boolean;
  /** Per dependency (`redis`, `postgres`): why it does not answer. */
  failures: Record<string, string>;
}

/** `GET <holder.url>/readyz`; throws when the service does not answer at all. */
export async function readinessOf(holder: LockHolder): Promise<Readiness> {
  if (!holder.url) throw new Error(`${describeHolder(holder)} is still starting (no HTTP server yet); run doctor again in a moment`);
  const response = await fetch(`${holder.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json().catch(() => ({}))) as { failures?: Record<string, string> };
  return { ready: response.ok, failures: body.failures ?? {} };
}

/** One line about the running service, through its /readyz. */
export async function describeRunningService(holder: LockHolder, readiness: Promise<Readiness>): Promise<string> {
  const { ready, failures } = await readiness;
  const url = `${holder.url}/readyz`;
  if (!ready) throw new Error(`${describeHolder(holder)} is running but ${url} answers not ready: ${formatFailures(failures)}`);
  return `running in DATA_DIR: ${describeHolder(holder)}; ${url} answers ready`;
}

/** An embedded part of the running service (`redis` or `postgres`), as its /readyz sees it. */
export async function checkThroughService(part: 'redis' | 'postgres', what: string, holder: LockHolder, readiness: Promise<Readiness>): Promise<string> {
  if (holder.command !== 'start') throw new Error(`${what} is in use by ${describeHolder(holder)}; run doctor again when it has ended`);
  const { failures } = await readiness;
  const failure = failures[part];
  if (failure !== undefined) throw new Error(`${what} of the running service does not answer (its /readyz: ${failure})`);
  return `${what} belongs to the running service (process ${holder.pid}), which says it answers; not opened here`;
}

/** REDIS_URL unset and no service running: the redis-server on PATH is started once in a scratch folder and pinged. */
export async function checkRedisServerOnPath(config: AppConfig): Promise<string> {
  const version = /v=(\S+)/.exec(redisServerVersion())?.[1] ?? 'of unknown version';
  const scratch = mkdtempSync(join(tmpdir(), 'chatbot-doctor-redis-'));
  try {
    const server = await startEmbeddedRedis(scratch, { persistent: false });
    const redis = createRedisClient({ url: server.url, cluster: false }, 'producer');
    try {
      await waitUntilReady(redis, 5_000);
      await redis.ping();
    } finally {
      redis.disconnect();
      await server.stop();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return `REDIS_URL unset: redis-server ${version} from PATH starts and answers; the service runs one with its data in ${join(config.dataDir, 'redis')}`;
}

function formatFailures(failures: Record<string, string>): string {
  const entries = Object.entries(failures);
  return entries.length === 0 ? 'no reason given' : entries.map(([name, reason]) => `${name}: ${reason}`).join('; ');
}
