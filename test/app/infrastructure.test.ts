import { afterEach, describe, expect, it } from 'vitest';
import { buildInfrastructure, type Infrastructure } from '../../src/app/infrastructure.js';
import { loadConfig } from '../../src/config/index.js';
import { createTestDatabase, testRedisTarget, uniqueName } from '../support/services.js';

const built: Infrastructure[] = [];
const databases: Array<{ drop: () => Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(built.splice(0).map((infra) => infra.stopAll()));
  await Promise.all(databases.splice(0).map((database) => database.drop()));
});

describe('the infrastructure every role stands on', () => {
  it.each(['all', 'gateway', 'worker'])('ROLE=%s: both Redis connections are ready before a queue can send on them', async (role) => {
    const target = testRedisTarget();
    const database = await createTestDatabase();
    databases.push(database);
    const infra = await buildInfrastructure(
      loadConfig({
        OPENAI_API_KEY: 'sk-test',
        ROLE: role,
        DATABASE_URL: database.url,
        REDIS_URL: target.url,
        ...(target.cluster ? { REDIS_CLUSTER: 'true' } : {}),
        QUEUE_PREFIX: uniqueName('infra'),
      }),
    );
    built.push(infra);
    // a cluster client in `connect` would refuse a producer's command ("Cluster isn't ready")
    expect(infra.redis.status).toBe('ready');
    expect(infra.bullmqRedis.status).toBe('ready');
  });
});
