import { defineConfig } from 'vitest/config';

/** What drives the built service as child processes (or kills them): each file in a fresh worker of its own. */
const ISOLATED = ['test/e2e/**/*.test.ts', 'test/faults/**/*.test.ts'];

export default defineConfig({
  test: {
    // test/cluster/ runs only on a Redis Cluster: `npm run test:cluster` (vitest.cluster.config.ts)
    exclude: ['**/node_modules/**', 'test/cluster/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        // the in-process tests share their workers' module graph (isolate: false): a fresh worker per file cost
        // about 0.45 s of CPU each (its start and importing the sources again), some 80 s over these files
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', 'test/cluster/**', ...ISOLATED], isolate: false },
      },
      { extends: true, test: { name: 'service', include: ISOLATED } },
    ],
  },
});
