import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BotError } from '../core/errors.js';

export interface EmbeddedRedis {
  url: string;
  /** The redis-server process (for logs and tests). */
  pid: number;
  /** SIGTERM (Redis writes its append-only file and exits), waiting at most `timeoutMs` before SIGKILL. */
  stop(timeoutMs?: number): Promise<void>;
}

export const REDIS_SERVER_MISSING =
  'REDIS_URL: not set and no redis-server on PATH. Install Redis (Debian/Ubuntu: `apt-get install redis-server`, macOS: `brew install redis`) or set REDIS_URL=redis://host:6379';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** `redis-server --version` from PATH: its version line, or a BotError saying how to get one. */
export function redisServerVersion(): string {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.error) throw new BotError('config', REDIS_SERVER_MISSING);
  if (probe.status !== 0) throw new BotError('config', `redis-server --version exited with code ${probe.status}: ${(probe.stderr || probe.stdout).trim().slice(-300)}`);
  return probe.stdout.trim();
}

/**
 * REDIS_URL unset: run `redis-server` from PATH as a child process with its data in `directory`.
 *
 * It runs in a process group (session) of its own, so the signal a terminal's Ctrl-C, `timeout` or a
 * supervisor sends to our group does not reach it: the service stops it itself, last, after the turns have
 * drained. So that it cannot outlive us when we are killed outright (SIGKILL, OOM), a watchdog shell holds
 * the read end of a pipe whose write end only this process has: when this process ends, however it ends, the
 * pipe closes and the watchdog sends the server SIGTERM.
 */
export async function startEmbeddedRedis(
  directory: string,
  options: {
    persistent?: boolean;
    onUnexpectedExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
    /** Ports it must not take: the service's own HTTP port, free until the gateway binds it after Redis started. */
    avoidPorts?: number[];
  } = {},
): Promise<EmbeddedRedis> {
  redisServerVersion();
  mkdirSync(directory, { recursive: true });
  let port = await freePort();
  while (options.avoidPorts?.includes(port)) port = await freePort();
  const persistence = options.persistent === false ? ['--appendonly', 'no'] : ['--appendonly', 'yes'];
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, ...persistence, '--save', '', '--maxmemory-policy', 'noeviction'],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const watchdog = watch(child.pid!);
  const stopWithUs = () => {
    endWatchdog(watchdog);
    child.kill('SIGTERM');
  };
  process.once('exit', stopWithUs);
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child.once('error', (error) => reject(new BotError('config', `redis-server could not be started: ${error.message}`)));
      child.once('exit', (code) => reject(new BotError('config', `redis-server exited with code ${code}: ${output.slice(-500)}`)));
    });
  } catch (error) {
    process.off('exit', stopWithUs);
    stopWithUs();
    throw error;
  }
  // its log is not ours to keep; reading on keeps the pipe from filling up
  child.stdout?.removeAllListeners('data');
  child.stdout?.resume();
  child.stderr?.resume();
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) options.onUnexpectedExit?.(code, signal);
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async (timeoutMs = 5_000) => {
      stopping = true;
      process.off('exit', stopWithUs);
      endWatchdog(watchdog);
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
}

/**
 * A shell that waits for its stdin to close (this process ended), then sends `pid` SIGTERM. `read` is the shell's
 * own: one small process, not a shell and a `cat`.
 */
function watch(pid: number): ChildProcess {
  const watchdog = spawn('/bin/sh', ['-c', 'while read -r _; do :; done; kill -TERM "$1" 2>/dev/null', 'redis-watchdog', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  // neither the watchdog nor its pipe keeps this process alive
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  watchdog.on('error', () => undefined);
  return watchdog;
}

/** The watchdog: a group of its own (detached), ended with anything it started. */
function endWatchdog(watchdog: ChildProcess): void {
  try {
    process.kill(-watchdog.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}
