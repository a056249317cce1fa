// CONTRACT §7: use REDIS_URL / DATABASE_URL when set; otherwise Redis on 127.0.0.1:6379 and PostgreSQL on
// 127.0.0.1:5432 (database `test`), starting them when they are installed but not running.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1_000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

async function waitFor(host, port, seconds) {
  for (let i = 0; i < seconds * 4; i++) {
    if (await reachable(host, port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

async function ensureRedis() {
  if (process.env.REDIS_URL) return;
  if (await reachable('127.0.0.1', 6379)) return;
  if (!has('redis-server')) throw new Error('Redis is not running on 127.0.0.1:6379 and redis-server is not installed (apt-get install redis-server), or set REDIS_URL');
  process.stderr.write('starting redis-server on 127.0.0.1:6379\n');
  execSync('redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no', { stdio: 'inherit' });
  if (!(await waitFor('127.0.0.1', 6379, 10))) throw new Error('redis-server did not start');
}

async function ensurePostgres() {
  if (process.env.DATABASE_URL) return;
  if (!(await reachable('127.0.0.1', 5432))) {
    const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
    if (versions.length === 0 || !has('pg_ctlcluster')) {
      throw new Error('PostgreSQL is not running on 127.0.0.1:5432 and is not installed (apt-get install postgresql), or set DATABASE_URL');
    }
    process.stderr.write(`starting PostgreSQL ${versions[0]}\n`);
    execSync(`pg_ctlcluster --skip-systemctl-redirect ${versions[0]} main start`, { stdio: 'inherit' });
    if (!(await waitFor('127.0.0.1', 5432, 30))) throw new Error('PostgreSQL did not start');
  }
}

try {
  await ensureRedis();
  await ensurePostgres();
} catch (error) {
  // one line saying what is missing and how to get it, not a stack trace
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
