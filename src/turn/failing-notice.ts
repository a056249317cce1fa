import type { TurnFailingNotifier } from '../core/turn-contract.js';
import type { TurnDependencies } from './turn-dependencies.js';

/** `N minutes` (at least one), `1 minute`, or `N seconds` under a minute. */
export function aboutHowLong(ms: number): string {
  if (ms < 60_000) {
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const minutes = Math.ceil(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** What a failing turn's user is told once (CONTRACT §19). */
export function failingNotice(retryForMs: number): string {
  return `I can't answer right now: the model (or a service I need) is not responding. I'll keep trying for up to ${aboutHowLong(retryForMs)} and answer as soon as it works. Send /stop to cancel.`;
}

/** What the user of a turn abandoned after every retry is told at the end. */
export function abandonedNotice(triedForMs: number | undefined): string {
  const tried = triedForMs !== undefined && triedForMs >= 1000 ? ` after trying for ${aboutHowLong(triedForMs)}` : '';
  return `Sorry, I could not answer your message${tried}, so I have stopped trying. Please send it again in a while.`;
}

/**
 * Tells a failing turn's user, once, that the bot keeps trying and that /stop cancels: the notice is a stream of the
 * turn's delivery record (`failing`), fenced by its holder, so a worker that tells again (a later failure, another
 * worker after a takeover) finds it out already and sends nothing.
 */
export function createFailingNotifier(deps: Pick<TurnDependencies, 'deliveries' | 'channels'>): TurnFailingNotifier {
  return async ({ turnId, sessionKey, holder, messages, retryForMs }) => {
    const latest = messages.at(-1);
    if (!latest) return;
    const progress = await deps.deliveries.resume({ sessionKey, turnId, holder }, 'failing', latest.conversation.channel);
    if (progress.delivered.length > 0 && !progress.inDoubt) return;
    await deps.channels.for(latest.conversation).sendNotice(latest.conversation, failingNotice(retryForMs), progress);
  };
}
