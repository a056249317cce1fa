import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../test/support/service-process.js';

// this file runs from dist/bench/, so the project root is two levels up
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli.js');

export interface ServiceChildProcess {
  url: string;
  child: ChildProcess;
  pid: number;
  /** What it wrote to stdout and stderr (LOG_LEVEL=warn keeps this small). */
  output(): string;
  /** SIGTERM, then SIGKILL after `killAfterMs`; resolves with the exit code. */
  stop(killAfterMs?: number): Promise<number | null>;
}

/** Runs the built service (`node dist/src/cli.js start`) as a child process and waits until /healthz answers. */
export async function startServiceChild(env: Record<string, string>): Promise<ServiceChildProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build)`);
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not become healthy within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    pid: child.pid!,
    output: () => output,
    stop: async (killAfterMs = 40_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}
