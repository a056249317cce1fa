import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Database, StoreDatabase } from './database.js';
import * as schema from './schema/index.js';

/** The embedded PostgreSQL under `${dataDir}/pglite`: one connection inside this process. */
export async function openPglite(dataDir: string): Promise<Database> {
  const directory = path.join(dataDir, 'pglite');
  await mkdir(directory, { recursive: true });
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
  const client = await PGlite.create(directory);
  const db: StoreDatabase = drizzlePglite({ client, schema });
  // One connection in this process: an in-process queue is the whole lock.
  let lockQueue: Promise<unknown> = Promise.resolve();
  return {
    db,
    kind: 'pglite',
    preparedStatements: true,
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => client.close(),
    withAdvisoryLock: (_lockId, work) => {
      const result = lockQueue.then(() => work(db));
      lockQueue = result.catch(() => undefined);
      return result;
    },
  };
}
