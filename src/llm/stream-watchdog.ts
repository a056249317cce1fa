/**
 * Aborts a model stream that goes quiet: the SDKs' own timeout only covers the wait for the
 * response headers, so a server that stops sending mid-stream would otherwise hang the turn.
 * The timer is armed once the stream is open, never during the SDK's retry back-off.
 */
export class StreamWatchdog {
  private readonly controller = new AbortController();
  /** Aborted by the caller's signal, by silence, or by `abandon()`. */
  readonly signal = this.controller.signal;
  private timer: NodeJS.Timeout | undefined;
  private fired = false;

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly idleMs: number,
  ) {
    // a listener, not AbortSignal.any: the SDK composes this signal with its own again, and composite signals
    // are tracked for the garbage collector (about 0.5 % of a message's CPU between the two)
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.forwardAbort, { once: true });
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
    this.dispose();
    if (!this.controller.signal.aborted) this.controller.abort(new Error('the model stream was left before its end'));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.forwardAbort);
  }

  private readonly forwardAbort = () => {
    clearTimeout(this.timer);
    this.controller.abort(this.callerSignal!.reason);
  };

  private readonly fire = () => {
    this.fired = true;
    this.controller.abort(new Error(`no data from the model for ${this.idleMs} ms`));
  };
}
