import { constants } from 'node:os';
import { stopBudget } from './stop-steps.js';

export interface StopSignalOptions {
  graceMs: number;
  write: (line: string) => void;
  exit: (code: number) => void;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** Past the stop's own deadline, by this much, the process ends whatever is still running. */
const LAST_RESORT_MARGIN_MS = 1_000;

/**
 * SIGTERM and SIGINT. The first stops the service gracefully (exit code 0; 1 when a part did not stop within
 * SHUTDOWN_GRACE_MS), also when it comes while the service is still starting; a second ends the process at
 * once with 128 + the signal's number (the exit handlers still stop the embedded redis-server and release the
 * data folder). Installed before the service starts, so that no signal finds the process without them.
 */
export class StopSignals {
  private stopService: (() => Promise<void>) | undefined;
  private signalled = false;
  private stopping = false;

  constructor(private readonly options: StopSignalOptions) {
    for (const signal of SIGNALS) process.on(signal, () => this.receive(signal));
  }

  /** The service is up; a signal that came while it started stops it now. */
  started(stop: () => Promise<void>): void {
    this.stopService = stop;
    if (this.signalled) this.stop();
  }

  private receive(signal: (typeof SIGNALS)[number]): void {
    const { write, exit, graceMs } = this.options;
    if (this.signalled) {
      write(`received ${signal} again: exiting now`);
      exit(128 + constants.signals[signal]);
      return;
    }
    this.signalled = true;
    write(`received ${signal}: shutting down (within SHUTDOWN_GRACE_MS=${graceMs}; ${signal === 'SIGINT' ? 'Ctrl-C' : 'send it'} again to exit at once)`);
    const lastResort = setTimeout(() => {
      write('shutdown did not end in time: exiting now');
      exit(1);
    }, stopBudget(graceMs).deadline - Date.now() + LAST_RESORT_MARGIN_MS);
    lastResort.unref();
    this.stop();
  }

  private stop(): void {
    if (!this.stopService || this.stopping) return;
    this.stopping = true;
    this.stopService().then(
      () => this.options.exit(0),
      (error: unknown) => {
        this.options.write(`shutdown incomplete: ${error instanceof Error ? error.message : String(error)}`);
        this.options.exit(1);
      },
    );
  }
}
