import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** CONTRACT §7: REDIS_URL / DATABASE_URL when set, else the local services. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
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
