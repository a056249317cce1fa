import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
/** What `npm start` runs: the esbuild bundle (test/support/global-setup.ts builds it when the sources are newer). */
export const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServiceProcess {
  port: number;
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Signals the whole process group, as a terminal's Ctrl-C, `timeout` or a supervisor does (needs `ownProcessGroup`). */
  signalGroup(signal: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

export interface ServiceProcessOptions {
  /** Start the service as the leader of a process group of its own, so that `signalGroup` reaches it and its children only. */
  ownProcessGroup?: boolean;
  /** The CLI to run: the bundle in dist/bundle unless told (the bundle test runs a bundle of its own). */
  cli?: string;
}

/** The service exited at start because its port was taken between `freePort()` and its own listen. */
class PortTakenError extends Error {}

/**
 * Runs the built service as a child process and waits until /healthz answers. A port `freePort()` picked is free
 * only when picked: until the service listens on it (a second or more on a loaded machine), any process's outgoing
 * connection may get it as its local port. A start refused with EADDRINUSE is tried again on a new port (unless the
 * caller chose the port).
 */
export async function startServiceProcess(env: Record<string, string>, args: string[] = ['start'], options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceProcessOnce(env, args, options);
    } catch (error) {
      if (env.PORT || attempt >= 3 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

async function startServiceProcessOnce(env: Record<string, string>, args: string[], options: ServiceProcessOptions): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [options.cli ?? CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      const message = `service exited with ${child.exitCode}:\n${output}`;
      throw output.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`) ? new PortTakenError(message) : new Error(message);
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not become healthy:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    url,
    child,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async (signal) => {
      child.kill(signal);
      await exited;
    },
    signalGroup: (signal) => {
      if (!options.ownProcessGroup) throw new Error('signalGroup needs startServiceProcess(…, { ownProcessGroup: true })');
      process.kill(-child.pid!, signal);
    },
  };
}

export async function waitFor<T>(probe: () => T | Promise<T>, options: { timeoutMs?: number; what?: string } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'condition'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
