import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/service-process.js';

export interface SoakRedis {
  url: string;
  /** Stops the server with `signal` (SIGTERM: it finishes its AOF; SIGKILL: it does not), waits, starts it again. */
  restart(signal: 'SIGTERM' | 'SIGKILL', downForMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The soak's own redis-server, with the append-only file fsynced on every write: a kill -9 of Redis then loses
 * nothing it acknowledged (with `appendfsync everysec`, as the README recommends for speed, it may lose the last
 * second, which no delivery record can make up for).
 */
export async function startSoakRedis(): Promise<SoakRedis> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'soak-redis-'));
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--maxmemory-policy', 'noeviction'];
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onExit = (code: number | null) => reject(new Error(`redis-server exited ${code}: ${output}`));
      started.once('exit', onExit);
      started.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          started.off('exit', onExit);
          started.stdout!.removeAllListeners('data');
          started.stdout!.resume();
          resolve();
        }
      });
    });
  }

  async function halt(signal: NodeJS.Signals): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  }

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart(signal, downForMs) {
      await halt(signal);
      await new Promise((resolve) => setTimeout(resolve, downForMs));
      await launch();
    },
    async stop() {
      await halt('SIGTERM');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
