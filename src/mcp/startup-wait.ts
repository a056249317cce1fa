/**
 * Waits until every promise settled, `ms` passed or `signal` aborted, whichever comes first; never rejects. The
 * timer and the abort listener are removed when it ends, so a turn that stops waiting leaves nothing behind.
 */
export function startupWait(promises: Promise<unknown>[], ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    void Promise.allSettled(promises).then(done);
  });
}
