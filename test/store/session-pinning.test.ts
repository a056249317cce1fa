import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSessionPinning } from '../../src/store/session-pinning.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { TEST_DATABASE_URL } from '../support/services.js';

/** The probe behind DATABASE_POOLER's start-up check and doctor's pooler lines. */
let poolers: PgBouncer[] = [];
beforeAll(async () => {
  poolers = await Promise.all([startPgBouncer({ poolSize: 3 }), startPgBouncer({ poolSize: 1 })]);
});
afterAll(async () => {
  await Promise.all(poolers.map((pooler) => pooler.stop()));
});

async function probe(url: string): Promise<{ pinning: string; ms: number }> {
  const client = postgres(url, { max: 4, prepare: false, onnotice: () => {} });
  const started = Date.now();
  try {
    return { pinning: await probeSessionPinning(client, 500), ms: Date.now() - started };
  } finally {
    await client.end();
  }
}

describe('probeSessionPinning', () => {
  it('pinned on PostgreSQL itself, shared through a transaction pooler', async () => {
    expect((await probe(TEST_DATABASE_URL)).pinning).toBe('pinned');
    expect((await probe(poolers[0]!.urlFor(TEST_DATABASE_URL))).pinning).toBe('shared');
  });

  it('unknown, after its short wait and without hanging, when the pooler has a single server connection', async () => {
    const { pinning, ms } = await probe(poolers[1]!.urlFor(TEST_DATABASE_URL));
    expect(pinning).toBe('unknown');
    expect(ms).toBeGreaterThanOrEqual(500);
    expect(ms).toBeLessThan(5_000);
  });
});
