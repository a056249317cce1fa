import { BotError } from './errors.js';

/** Why a running turn was aborted: a user's /stop, a worker shutting down, or another holder taking it over. */
export type TurnAbortReason = 'stopped' | 'shutdown' | 'leaseLost';

const DESCRIPTIONS: Record<TurnAbortReason, string> = {
  stopped: 'stopped by user',
  shutdown: 'worker shutting down',
  leaseLost: 'lease lost',
};

/** The abort reason a turn's signal carries, so every layer can tell why without reading messages. */
export class TurnAbortError extends BotError {
  constructor(readonly reason: TurnAbortReason) {
    super('aborted', DESCRIPTIONS[reason]);
    this.name = 'TurnAbortError';
  }
}

export function abortReasonOf(signal: AbortSignal): TurnAbortReason | undefined {
  return signal.aborted && signal.reason instanceof TurnAbortError ? signal.reason.reason : undefined;
}
