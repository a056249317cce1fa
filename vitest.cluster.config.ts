import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:cluster` (issue 24): the tests below on a local three-master Redis Cluster started for the run
 * (test/support/cluster-global-setup.ts); the service under test runs with REDIS_CLUSTER=true and the seeds in
 * REDIS_URL. test/cluster/ holds what only makes sense on a cluster (a master killed and restarted).
 */
// the cluster run is one project of its own (the default one's split into isolated and shared workers is not wanted here)
const { projects: _projects, ...shared } = base.test!;

export default defineConfig({
  test: {
    ...shared,
    include: [
      'test/cluster/**/*.test.ts',
      // the Redis layer and the turn path against the cluster
      'test/redis/session-queue.test.ts',
      'test/redis/session-queue-held-turns.test.ts',
      'test/redis/session-queue-placement.test.ts',
      'test/redis/group-context.test.ts',
      'test/redis/redis-client.test.ts',
      'test/app/infrastructure.test.ts',
      'test/queue/queue-worker.test.ts',
      'test/queue/placement.test.ts',
      'test/turn/delivery-once.test.ts',
      // sessions: the group limit (3 at once) and /stop
      'test/e2e/sessions.test.ts',
      // crash takeover: a worker SIGKILLed mid-turn
      'test/faults/worker-crash.test.ts',
      // approval park: a turn parked on a button, across process kills
      'test/e2e/approval-telegram.test.ts',
      'test/e2e/schedules.test.ts',
      'test/e2e/connection-lease.test.ts',
      // budgets: the batched spend of a day is one script call over its keys (one slot)
      'test/budgets/batched-spend.test.ts',
    ],
    exclude: [],
    globalSetup: ['test/support/global-setup.ts', 'test/support/cluster-global-setup.ts'],
    setupFiles: ['test/support/cluster-env-setup.ts'],
  },
});
