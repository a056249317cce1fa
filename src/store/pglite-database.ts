import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database, StoreDatabase } from './database-types.js';
import * as schema from './schema/index.js';

/**
 * PostgreSQL's own defaults are sized for a server (128 MB of shared buffers, 4 MB of WAL buffers), and inside
 * PGlite every page of them is resident memory of this process. One bot's sessions fit in far less.
 */
const EMBEDDED_SETTINGS = ['shared_buffers=16MB', 'wal_buffers=1MB', 'temp_buffers=1MB'];

/** Runs initdb for `directory` in a short-lived child process (src/store/pglite-initdb.ts) and waits for it. */
async function initializeInChild(directory: string): Promise<void> {
  // the .js beside this file (dist/src/store/, or dist/bundle/ beside the chunk); under vitest, running the sources,
  // the tsc output of it (`npm test` compiles first)
  const beside = fileURLToPath(new URL('./pglite-initdb.js', import.meta.url));
  const script = existsSync(beside) ? beside : fileURLToPath(new URL('../../dist/src/store/pglite-initdb.js', import.meta.url));
  const child = spawn(process.execPath, [script, directory], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('exit', resolve));
  if (code !== 0) throw new Error(`initializing the embedded database in ${directory} failed (exit ${code}): ${stderr.trim()}`);
}

/** The embedded PostgreSQL under `${dataDir}/pglite`: one connection inside this process. */
export async function openPglite(dataDir: string): Promise<Database> {
  const directory = path.join(dataDir, 'pglite');
  await mkdir(directory, { recursive: true });
  if (!existsSync(path.join(directory, 'PG_VERSION'))) await initializeInChild(directory);
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
  const startParams = [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting])];
  const client = await PGlite.create(directory, { startParams });
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
