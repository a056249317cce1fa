import { inject } from 'vitest';

// Runs in each test worker before a test file is imported: services.ts reads TEST_REDIS_CLUSTER_URL when it loads.
process.env.TEST_REDIS_CLUSTER_URL = inject('redisClusterUrl');
