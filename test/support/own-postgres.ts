import { execFile, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './service-process.js';

const run = promisify(execFile);

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/<database> of the database created at start. */
  url: string;
  port: number;
  /** Stops the server (`fast`: clients are disconnected and it shuts down cleanly; `immediate`: a crash, recovered from WAL at start), waits, starts it again. */
  restart(mode: 'fast' | 'immediate', downForMs: number): Promise<void>;
  /** `pg_terminate_backend` of every other connection to the database (what a DBA's kill, or a failing proxy, does); returns how many. */
  terminateBackends(): Promise<number>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

/** Debian's PostgreSQL programs, newest version first (`/usr/lib/postgresql/<version>/bin`). */
function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no /usr/lib/postgresql/<version>/bin: install Debian\'s postgresql');
  return join('/usr/lib/postgresql', versions[0]!, 'bin');
}

/**
 * A PostgreSQL server of the caller's own (initdb + pg_ctl into a temp directory, on a free port, trust auth):
 * for faults that must not touch the machine's shared PostgreSQL, which other tests use — restarts and killed
 * connections. PostgreSQL refuses to run as root: as root it runs as the `postgres` user. `fsync` is off (a
 * killed server still keeps what it committed: the files are in the page cache; only a machine crash would lose it).
 */
export async function startOwnPostgres(database = 'soak'): Promise<OwnPostgres> {
  const bin = postgresBin();
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'own-postgres-'));
  const data = join(directory, 'data');
  const asRoot = process.getuid?.() === 0;
  let uid: number | undefined;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    uid = Number(stdout.trim());
    chownSync(directory, uid, Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  }
  const as = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], { timeout: 120_000 }) : run(join(bin, program), args, { timeout: 120_000 });
  const superuser = asRoot ? 'postgres' : userInfo().username;
  await as('initdb', ['-D', data, '-A', 'trust', '-U', superuser, '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c shared_buffers=32MB`;
  const start = () => as('pg_ctl', ['-D', data, '-l', join(directory, 'log'), '-o', options, '-w', '-t', '60', 'start']);
  const halt = (mode: 'fast' | 'immediate') => as('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']).catch(() => undefined);
  await start();
  const adminUrl = `postgres://${superuser}@127.0.0.1:${port}/postgres`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${database}`);
  await admin.end();
  let stopped = false;
  const stopAtExit = () => {
    // an exit handler runs synchronously: the server must not outlive the process that started it
    if (!stopped) spawnSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), [...(asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []), '-D', data, '-m', 'immediate', 'stop']);
  };
  process.once('exit', stopAtExit);
  return {
    url: `postgres://${superuser}@127.0.0.1:${port}/${database}`,
    port,
    async restart(mode, downForMs) {
      await halt(mode);
      await new Promise((resolve) => setTimeout(resolve, downForMs));
      await start();
    },
    async terminateBackends() {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql<Array<{ terminated: boolean }>>`SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`;
        return rows.filter((row) => row.terminated).length;
      } finally {
        await sql.end();
      }
    },
    async stop() {
      stopped = true;
      process.off('exit', stopAtExit);
      await halt('fast');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
