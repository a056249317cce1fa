import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort } from './service-process.js';
import { TEST_DATABASE_URL } from './services.js';
import { pgbouncerPath, requireSystemPackages } from './system-packages.js';

export interface PgBouncer {
  port: number;
  /** The same database as `directUrl` (a postgres:// URL of the PostgreSQL behind this pooler), through PgBouncer. */
  urlFor(directUrl: string): string;
  /** Client connections PgBouncer holds now for `database` (SHOW CLIENTS on its admin console). */
  clients(database: string): Promise<number>;
  /** The pgbouncer process, while it runs. */
  pid: number | undefined;
  /** Stops PgBouncer (its clients' connections drop) and removes its files. */
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** `default_pool_size`: server connections per database and user (default 3, fewer than one service process's 10 clients, so that transactions share them). */
  poolSize?: number;
  /** The PostgreSQL to pool, a postgres:// URL (its host, port and user; trust auth). Default TEST_DATABASE_URL. */
  target?: string;
}

/**
 * PgBouncer in transaction mode on a free port in front of the test PostgreSQL (TEST_DATABASE_URL's host and
 * port, trust auth): any database name a client asks for is passed through (`* =`). Transaction mode hands each
 * transaction whichever server connection is free, so nothing session-level (named prepared statements, SET,
 * session advisory locks) survives between transactions. PgBouncer refuses to run as root: as root it is started
 * with `-u nobody`. A process still running when the test process exits is killed.
 */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  requireSystemPackages('pgbouncer');
  const program = pgbouncerPath();
  const target = new URL(options.target ?? TEST_DATABASE_URL);
  const user = decodeURIComponent(target.username || 'postgres');
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  const asRoot = process.getuid?.() === 0;
  const authFile = join(directory, 'userlist.txt');
  const configFile = join(directory, 'pgbouncer.ini');
  writeFileSync(authFile, `"${user}" ""\n`);
  writeFileSync(
    configFile,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${authFile}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 3}`,
      'max_client_conn = 500',
      `admin_users = ${user}`,
      // as common setups have it; postgres.js itself sends only application_name and client_encoding, which PgBouncer tracks
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  // `-u nobody` switches user before reading the files
  if (asRoot) for (const [path, mode] of [[directory, 0o755], [authFile, 0o644], [configFile, 0o644]] as const) chmodSync(path, mode);

  const child = spawn(program, [...(asRoot ? ['-u', 'nobody'] : []), configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`pgbouncer did not start within 10 s: ${output.slice(-1_000)}`)), 10_000);
      // keeps draining the log after start (a full pipe would block PgBouncer), remembering only its tail
      const collect = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4_000);
        if (output.includes(`listening on 127.0.0.1:${port}`)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`pgbouncer exited with ${code}: ${output.slice(-1_000)}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const urlFor = (directUrl: string) => {
    const url = new URL(directUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  };
  return {
    port,
    urlFor,
    clients: async (database) => {
      const adminUrl = new URL(urlFor(target.toString()));
      adminUrl.pathname = '/pgbouncer';
      // the admin console speaks only the simple protocol and has no pg_type to fetch
      const admin = postgres(adminUrl.toString(), { max: 1, fetch_types: false, prepare: false, onnotice: () => {} });
      try {
        const rows = await admin.unsafe<Array<{ database: string }>>('SHOW CLIENTS');
        return rows.filter((row) => row.database === database).length;
      } finally {
        await admin.end();
      }
    },
    get pid() {
      return child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    stop,
  };
}
