import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/service-process.js';

export interface PrivateRedis {
  url: string;
  /** Stops the server (SIGTERM: it writes its append-only file) and starts it again on the same port and data. */
  restart(downForMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server of the test's own, with AOF as production runs it, so it can be restarted under load. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'fault-redis-'));
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child!.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${output}`)));
    });
  }

  async function halt(): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  }

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    restart: async (downForMs) => {
      await halt();
      await new Promise((resolve) => setTimeout(resolve, downForMs));
      await launch();
    },
    stop: async () => {
      await halt();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
