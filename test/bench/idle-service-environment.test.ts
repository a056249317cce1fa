import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../bench/harness.js';
import { runEmbedded, runIdleAndStartup } from '../../bench/idle.js';
import { createTestDatabase, TEST_REDIS_URL, uniqueName } from '../support/services.js';

/**
 * `BENCH_SERVICE_ENV` reaches the service children of the idle and embedded phases too (bench/idle.ts, built service),
 * so that a setting compared with and without it (e.g. `MALLOC_ARENA_MAX=2`) is applied there. An invalid `ROLE`
 * shows it: the service refuses to start with it, and starts without it.
 */
const harness = { settings: { idleSeconds: 0, startupRuns: 0 }, prefixFor: (name: string) => `${uniqueName('idle_env')}_${name}` } as unknown as Harness;
let database: { url: string; drop: () => Promise<void> };

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

afterEach(() => {
  delete process.env.BENCH_SERVICE_ENV;
});

describe('BENCH_SERVICE_ENV in the idle phases', () => {
  it('is in the environment of the idle phase service', async () => {
    process.env.BENCH_SERVICE_ENV = 'ROLE=nonsense';
    await expect(runIdleAndStartup(harness, database.url, TEST_REDIS_URL, { idle: true, startup: false })).rejects.toThrow(/ROLE/);
  }, 60_000);

  it('is in the environment of the embedded default install', async () => {
    process.env.BENCH_SERVICE_ENV = 'ROLE=nonsense';
    await expect(runEmbedded(harness)).rejects.toThrow(/ROLE/);
  }, 60_000);
});
