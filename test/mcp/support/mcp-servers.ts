import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../../src/observability/logger.js';
import { Metrics } from '../../../src/observability/metrics.js';
import type { McpHttpServer, McpServerConfig, McpStdioServer } from '../../../src/mcp/mcp-config.js';
import { McpConnection, type McpConnectionOptions } from '../../../src/mcp/mcp-connection.js';
import { freePort, waitFor } from '../../support/service-process.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
export const TEST_SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'test-server.mjs');
export const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const LOOPBACK = join(ROOT, 'test', 'fixtures', 'mcp', 'listen-on-loopback.mjs');

const defaults = { tools: {}, approval: 'never', timeoutMs: 10_000, readOnlyTools: [] as string[], trustAnnotations: false } as const;

export function stdioServer(name: string, args: string[], overrides: Partial<McpStdioServer> = {}): McpStdioServer {
  return { ...defaults, name, transport: 'stdio', command: process.execPath, args, env: {}, cwd: undefined, ...overrides };
}

/** The fixture server (test/fixtures/mcp/test-server.mjs) with FIXTURE_* variables. */
export function fixtureServer(name: string, env: Record<string, string> = {}, overrides: Partial<McpStdioServer> = {}): McpStdioServer {
  return stdioServer(name, [TEST_SERVER], { env, ...overrides });
}

export function everythingStdio(name = 'everything', overrides: Partial<McpStdioServer> = {}): McpStdioServer {
  return stdioServer(name, [EVERYTHING, 'stdio'], overrides);
}

export function httpServer(name: string, url: string, overrides: Partial<McpHttpServer> = {}): McpHttpServer {
  return { ...defaults, name, transport: 'http', url, headers: {}, ...overrides };
}

/** Log lines as parsed JSON objects, for assertions on what was logged. */
export interface CapturedLog {
  logger: Logger;
  lines: Array<Record<string, any>>;
  text(): string;
}

export function captureLog(level = 'debug'): CapturedLog {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level, destination });
  return {
    logger,
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, any>);
    },
    text: () => raw.join(''),
  };
}

/** Short timings so that failures, retries and pings happen within a test. */
export const FAST: Omit<McpConnectionOptions, 'logger'> = {
  connectTimeoutMs: 10_000,
  backoff: { initialMs: 100, maxMs: 400 },
  pingIntervalMs: 0,
};

export interface TestConnection {
  connection: McpConnection;
  log: CapturedLog;
  metrics: Metrics;
}

const open: McpConnection[] = [];

export function connect(server: McpServerConfig, options: Partial<McpConnectionOptions> = {}): TestConnection {
  const log = captureLog();
  const metrics = new Metrics({ defaultMetrics: false });
  const connection = new McpConnection(server, { ...FAST, logger: log.logger, metrics, ...options });
  open.push(connection);
  connection.start();
  return { connection, log, metrics };
}

export async function closeConnections(): Promise<void> {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
}

export async function waitUntilUp(connection: McpConnection, timeoutMs = 20_000): Promise<void> {
  await waitFor(() => connection.state === 'up', { timeoutMs, what: `MCP server ${connection.server.name} up (last error: ${connection.lastError})` });
}

/** A file whose existence makes the fixture server misbehave; `fix()` removes it. */
export function brokenSwitch(): { file: string; fix: () => void; breakAgain: () => void; cleanup: () => void } {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-broken-'));
  const file = join(directory, 'broken');
  writeFileSync(file, '1');
  return {
    file,
    fix: () => rmSync(file, { force: true }),
    breakAgain: () => writeFileSync(file, '1'),
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  };
}

export async function metricValue(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const value = metric?.values.find((entry) => Object.entries(labels).every(([key, wanted]) => String(entry.labels[key]) === wanted));
  return value?.value;
}

export interface HttpEverything {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** server-everything over HTTP (`streamableHttp` or `sse`) on 127.0.0.1 and a free port. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse', port?: number): Promise<HttpEverything> {
  const chosen = port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', LOOPBACK, EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(chosen) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const path = mode === 'sse' ? '/sse' : '/mcp';
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`server-everything ${mode} exited:\n${output}`);
      return /listening on port|running on port/i.test(output);
    },
    { timeoutMs: 20_000, what: `server-everything ${mode} listening` },
  );
  return {
    url: `http://127.0.0.1:${chosen}${path}`,
    port: chosen,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
