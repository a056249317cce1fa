import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort } from '../test/support/service-process.js';

/** The project root: the nearest folder above this file with a package.json (from dist/bench/ when built, bench/ under vitest). */
export const ROOT = (() => {
  let directory = import.meta.dirname;
  while (!existsSync(join(directory, 'package.json')) && dirname(directory) !== directory) directory = dirname(directory);
  return directory;
})();
/**
 * What `npm start` runs: the bundle (scripts/bundle.mjs). `BENCH_SERVICE_CLI=tsc` runs the tsc output instead, whose
 * CPU profiles name source files and lines (the bundle's minified lines do not).
 */
const CLI = process.env.BENCH_SERVICE_CLI === 'tsc' ? join(ROOT, 'dist', 'src', 'cli.js') : join(ROOT, 'dist', 'bundle', 'cli.js');

export interface ServiceChildProcess {
  url: string;
  child: ChildProcess;
  pid: number;
  /** ms from spawn() to the first 200 of the readiness path. */
  readyMs: number;
  /** What it wrote to stdout and stderr (LOG_LEVEL=warn keeps this small). */
  output(): string;
  /** SIGTERM, then SIGKILL after `killAfterMs`; resolves with the exit code. */
  stop(killAfterMs?: number): Promise<number | null>;
}

export interface ChildOptions {
  /** `/healthz` (listening; the default) or `/readyz` (Redis and PostgreSQL answer). */
  readyPath?: string;
  /** How often the readiness path is polled (ms). */
  pollMs?: number;
  timeoutMs?: number;
}

/** Runs a Node script as a child process on a free PORT and waits until `readyPath` answers 200. */
function telemetryEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('OTEL_') && entry[1] !== undefined));
}

export async function startNodeChild(script: string, args: string[], env: Record<string, string>, options: ChildOptions = {}): Promise<ServiceChildProcess> {
  if (!existsSync(script)) throw new Error(`${script} is missing: build first (npm run build)`);
  const { readyPath = '/healthz', pollMs = 100, timeoutMs = 60_000 } = options;
  const port = await freePort();
  const spawnedAt = performance.now();
  // BENCH_NODE_ARGS: Node flags for every child that NODE_OPTIONS refuses (e.g. --trace-gc)
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    // OTEL_* pass through, to measure the service with trace export on (OTEL_EXPORTER_OTLP_ENDPOINT) against a run without
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...telemetryEnvironment(), ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const outputFile = process.env.BENCH_CHILD_OUTPUT_DIR ? join(process.env.BENCH_CHILD_OUTPUT_DIR, `${child.pid}.log`) : undefined;
  const keep = (chunk: Buffer) => {
    if (outputFile) appendFileSync(outputFile, chunk);
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = spawnedAt + timeoutMs;
  let readyMs: number;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(2_000) })).ok) {
        readyMs = performance.now() - spawnedAt;
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${readyPath} did not answer 200 within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return {
    url,
    child,
    pid: child.pid!,
    readyMs,
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

/** Runs the built service (`node dist/bundle/cli.js start`, what `npm start` runs) as a child process and waits until it is healthy (or ready). */
export function startServiceChild(env: Record<string, string>, options: ChildOptions = {}): Promise<ServiceChildProcess> {
  return startNodeChild(CLI, ['start'], env, options).catch((error: unknown) => {
    throw new Error(`service ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** `node dist/bundle/cli.js migrate`: applies pending migrations and exits. */
export async function migrate(env: Record<string, string>): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build)`);
  const child = spawn(process.execPath, [CLI, 'migrate'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`migrate exited with ${code}:\n${output}`);
}

/** The built script of a benchmark peer (bench/peers/<name>.ts). */
export const peerScript = (name: string) => join(ROOT, 'dist', 'bench', 'peers', `${name}.js`);
