import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../test/support/service-process.js';

// this file runs from dist/soak/, so the project root is two levels up
const ROOT = join(import.meta.dirname, '..', '..');
/** What `npm start` runs: the bundle (scripts/bundle.mjs). */
const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');

/** A process that exited without the soak asking: a crash, with the last lines it wrote (a stack trace is not JSON). */
export interface UnexpectedExit {
  at: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  lastLines: string[];
}

/** How many of a life's last output lines an unexpected exit reports. */
const TAIL_LINES = 20;

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
  readonly unexpectedExits: UnexpectedExit[] = [];
  restarts = 0;
  /**
   * The soak sent the signal the process is exiting on, or the process never became healthy (a start that fails
   * while Redis is away is retried, not a crash): its exit is no crash.
   */
  #exitExpected = true;
  #stopped = false;
  /** The current life's last lines, whatever their level or form. */
  #tail: string[] = [];
  /** Restarts run one at a time: the chaos's and the supervisor's after a crash. */
  #restarting: Promise<void> = Promise.resolve();
  /** Every line of every life (SOAK_LOG_DIR), buffered: the doubles share this process's event loop. */
  #logFile: WriteStream | undefined;

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly args: string[],
  ) {}

  /** `args`: what node runs, `npm start`'s bundle unless a test supervises a stand-in. */
  static async start(name: string, env: Record<string, string>, args: string[] = [CLI, 'start']): Promise<SupervisedService> {
    if (!existsSync(args[0]!)) throw new Error(`${args[0]} is missing: build first (npm run build)`);
    const service = new SupervisedService(name, await freePort(), env, args);
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
    const child = spawn(process.execPath, this.args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: process.env.SOAK_LOG_LEVEL || 'warn', ...this.env, HOST: '127.0.0.1', PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#exitExpected = true;
    this.#tail = [];
    this.#exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        resolve();
        if (!this.#exitExpected) this.crashed({ at: Date.now(), code, signal, lastLines: this.#tail });
      }),
    );
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
        if ((await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) {
          this.#exitExpected = false;
          return;
        }
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        // the next attempt starts another on the same port: this one must not linger
        await this.kill('SIGKILL');
        throw new Error(`${this.name} did not become healthy within 60 s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A crash is counted and the process started again a second later, as a supervisor (systemd, Kubernetes) would. */
  private crashed(exit: UnexpectedExit): void {
    this.unexpectedExits.push(exit);
    this.#restarting = this.#restarting
      .then(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        if (this.running || this.#stopped) return;
        await this.relaunch();
      })
      .catch((error: unknown) => {
        process.stderr.write(`[soak] ${this.name} could not be restarted after a crash: ${String(error)}\n`);
      });
  }

  private keepLine(line: string): void {
    this.#tail.push(line);
    if (this.#tail.length > TAIL_LINES) this.#tail.shift();
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
    this.#exitExpected = true;
    if (this.running) this.#child!.kill(signal);
    const killer = setTimeout(() => this.#child?.kill('SIGKILL'), 60_000);
    await this.#exited;
    clearTimeout(killer);
  }

  /** Starts it again on the same port (the supervisor's restart). */
  async restart(): Promise<void> {
    const restarted = this.#restarting.then(async () => {
      await this.kill('SIGKILL');
      await this.relaunch();
    });
    this.#restarting = restarted.catch(() => undefined);
    await restarted;
  }

  private async relaunch(): Promise<void> {
    this.restarts += 1;
    for (let attempt = 1; ; attempt += 1) {
      // a stop during a restart ends it: no new life after the stop
      if (this.#stopped) return;
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
    this.#stopped = true;
    await this.kill('SIGTERM');
    // a restart under way may have started a life after that kill
    await this.#restarting;
    await this.kill('SIGTERM');
    await new Promise<void>((resolve) => (this.#logFile ? this.#logFile.end(resolve) : resolve()));
  }
}
