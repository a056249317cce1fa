import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import postgres from 'postgres';
import type { RedisClient } from '../../src/redis/redis-client.js';

/** CONTRACT §7: REDIS_URL / DATABASE_URL when set, else the local services. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * `npm run test:cluster` sets TEST_REDIS_CLUSTER_URL (the seeds of a local three-master Redis Cluster): the
 * tests that read `testRedisTarget()` then run on the cluster (the service with REDIS_CLUSTER=true).
 */
export const TEST_REDIS_CLUSTER_URL = process.env.TEST_REDIS_CLUSTER_URL;

export function testRedisTarget(): { url: string; cluster: boolean } {
  return TEST_REDIS_CLUSTER_URL ? { url: TEST_REDIS_CLUSTER_URL, cluster: true } : { url: TEST_REDIS_URL, cluster: false };
}

/** Deletes every key matching `pattern` on every master (one server, or each node of a cluster). */
export async function deleteTestKeys(redis: RedisClient, pattern: string): Promise<void> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  for (const server of servers) {
    const keys = await server.keys(pattern);
    // one DEL per key: on a cluster the keys of one call must share a slot
    for (const key of keys) await server.del(key);
  }
}
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** A fresh, empty PostgreSQL database for one test file; drop() removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = uniqueName('bot_test');
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
