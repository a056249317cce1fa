import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/cluster/ runs only on a Redis Cluster: `npm run test:cluster` (vitest.cluster.config.ts)
    exclude: ['**/node_modules/**', 'test/cluster/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
