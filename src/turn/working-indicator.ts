import type { WorkingIndicator } from '../core/channel.js';

/**
 * The channel's working indicator (Telegram's typing action, the Slack or Feishu reaction or status), started only
 * once the turn has run `delayMs` (TYPING_DELAY_MS): most answers at a model's usual pace arrive sooner, and the
 * indicator's platform calls (one typing action; a reaction put on and taken off) would then show nothing the answer
 * does not. A slower turn shows it from `delayMs` on, or from its first progress line. 0: at once.
 */
export function startWorkingAfter(start: () => WorkingIndicator, delayMs: number): WorkingIndicator {
  if (delayMs <= 0) return start();
  let started: WorkingIndicator | undefined;
  let stopped = false;
  const timer = setTimeout(() => {
    if (!stopped) started = start();
  }, delayMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await started?.stop();
    },
    // a progress line means tools are running: the turn is a slow one, so the indicator comes on now
    status(label) {
      if (started === undefined && !stopped && label !== undefined) {
        clearTimeout(timer);
        started = start();
      }
      return started?.status?.(label) ?? false;
    },
    async park(line) {
      if (stopped) return false;
      if (started === undefined) {
        clearTimeout(timer);
        started = start();
      }
      return (await started.park?.(line)) ?? false;
    },
  };
}
