import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './redis-cluster.js';

/**
 * `npm run test:cluster`: one local three-master Redis Cluster for the whole run. Its seeds reach the test
 * workers through `inject('redisClusterUrl')` (cluster-env-setup.ts turns that into TEST_REDIS_CLUSTER_URL,
 * which `testRedisTarget()` reads), so the service under test runs with REDIS_CLUSTER=true.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startRedisCluster();
  project.provide('redisClusterUrl', cluster.url);
  process.stdout.write(`Redis Cluster for the tests: ${cluster.url}\n`);
  return () => cluster.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisClusterUrl: string;
  }
}
