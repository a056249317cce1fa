import { BotError } from '../core/errors.js';

export function cancelledError(): BotError {
  return new BotError('aborted', 'the run was cancelled');
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts: a model stream or a tool that
 * ignores the signal cannot keep a cancelled run hanging.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(cancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
