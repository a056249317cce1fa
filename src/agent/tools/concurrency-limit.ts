import { cancelledError } from '../abortable.js';

/**
 * At most `limit` holders at once; the others wait in arrival order. A waiter whose signal aborts leaves the
 * queue and rejects. Hand-written: a dozen lines, where p-limit would not let a waiter give up on abort.
 */
export class ConcurrencyLimit {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Resolves with the release function once a place is free. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw cancelledError();
    if (this.#active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const enter = (): void => {
          signal.removeEventListener('abort', leave);
          resolve();
        };
        const leave = (): void => {
          const index = this.#waiting.indexOf(enter);
          if (index >= 0) this.#waiting.splice(index, 1);
          reject(cancelledError());
        };
        this.#waiting.push(enter);
        signal.addEventListener('abort', leave, { once: true });
      });
    } else {
      this.#active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // the place goes straight to the next waiter: the count stays as it is
      if (next) next();
      else this.#active--;
    };
  }
}
