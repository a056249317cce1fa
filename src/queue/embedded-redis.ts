import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BotError } from '../core/errors.js';

export interface EmbeddedRedis {
  url: string;
  stop(): Promise<void>;
}

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

/** REDIS_URL unset: run `redis-server` from PATH as a child process with its data under DATA_DIR. */
export async function startEmbeddedRedis(dataDir: string): Promise<EmbeddedRedis> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    throw new BotError(
      'config',
      'REDIS_URL: not set and no redis-server on PATH. Install Redis (Debian/Ubuntu: `apt-get install redis-server`, macOS: `brew install redis`) or set REDIS_URL=redis://host:6379',
    );
  }
  const directory = join(dataDir, 'redis');
  mkdirSync(directory, { recursive: true });
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new BotError('config', `redis-server exited with code ${code}: ${output.slice(-500)}`)));
  });
  child.stdout?.removeAllListeners('data');
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      process.off('exit', stopOnExit);
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}
