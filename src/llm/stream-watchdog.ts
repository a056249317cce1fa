/**
 * Aborts a model stream that goes quiet: the SDKs' own timeout only covers the wait for the
 * response headers, so a server that stops sending mid-stream would otherwise hang the turn.
 * The timer is armed once the stream is open, never during the SDK's retry back-off.
 */
export class StreamWatchdog {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private fired = false;

  constructor(
    callerSignal: AbortSignal | undefined,
    private readonly idleMs: number,
  ) {
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
  }

  get timedOut(): boolean {
    return this.fired;
  }

  /** (Re)starts the idle timer; call on every chunk. */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error(`no data from the model for ${this.idleMs} ms`));
    }, this.idleMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
