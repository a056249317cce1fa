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
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(this.fire, this.idleMs);
  }

  /** The stream is left before its end (the reader stopped, or it failed): the request is aborted, not waited on. */
  abandon(): void {
    clearTimeout(this.timer);
    if (!this.controller.signal.aborted) this.controller.abort(new Error('the model stream was left before its end'));
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  private readonly fire = () => {
    this.fired = true;
    this.controller.abort(new Error(`no data from the model for ${this.idleMs} ms`));
  };
}
