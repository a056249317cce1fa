import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../test/support/service-process.js';

// this file runs from dist/soak/, so the project root is two levels up
const ROOT = join(import.meta.dirname, '..', '..');
/** What `npm start` runs: the bundle (scripts/bundle.mjs). */
const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');

/** A log line the soak looks for in a process's output (pino JSON). */
export interface LogLine {
  time: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * One service process under a supervisor: it keeps its port across restarts (a load balancer's backend), and
 * its log lines of interest are kept across lives.
 */
export class SupervisedService {
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  readonly lines: LogLine[] = [];
  restarts = 0;
  /** Every line of every life (SOAK_LOG_DIR), buffered: the doubles share this process's event loop. */
  #logFile: WriteStream | undefined;

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  static async start(name: string, env: Record<string, string>): Promise<SupervisedService> {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build)`);
    const service = new SupervisedService(name, await freePort(), env);
    await service.launch();
    return service;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  private async launch(): Promise<void> {
    const child = spawn(process.execPath, [CLI, 'start'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: process.env.SOAK_LOG_LEVEL || 'warn', ...this.env, HOST: '127.0.0.1', PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let pending = '';
    const keep = (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      for (const line of complete) this.keepLine(line);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited while starting`);
      try {
        if ((await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.name} did not become healthy within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private keepLine(line: string): void {
    if (process.env.SOAK_LOG_DIR && !this.#logFile) {
      mkdirSync(process.env.SOAK_LOG_DIR, { recursive: true });
      this.#logFile = createWriteStream(join(process.env.SOAK_LOG_DIR, `${this.name}.log`), { flags: 'a' });
    }
    // every line of every life, for a closer look at what the verdict names
    this.#logFile?.write(`${line}\n`);
    // only warnings and errors are kept (pino's levels 40, 50, 60): the rest is not parsed
    if (!line.startsWith('{') || !/"level":[456]0/.test(line)) return;
    try {
      const parsed = JSON.parse(line) as LogLine;
      if (parsed.level !== undefined && Number(parsed.level) >= 40) this.lines.push(parsed);
    } catch {
      // not a log line
    }
  }

  /** Sends `signal` and waits for the process to be gone. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.running) this.#child!.kill(signal);
    const killer = setTimeout(() => this.#child?.kill('SIGKILL'), 60_000);
    await this.#exited;
    clearTimeout(killer);
  }

  /** Starts it again on the same port (the supervisor's restart). */
  async restart(): Promise<void> {
    await this.kill('SIGKILL');
    this.restarts += 1;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.launch();
        return;
      } catch (error) {
        // Redis or the port may be away for a moment (a restart under chaos): try again
        if (attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    await new Promise<void>((resolve) => (this.#logFile ? this.#logFile.end(resolve) : resolve()));
  }
}
