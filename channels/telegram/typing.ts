import type { Api } from 'grammy';
import type { ConversationRef, WorkingIndicator } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { targetOf } from './conversation-target.js';

/** Telegram shows "typing…" for about 5 s per call, so it is renewed a little sooner. */
export const TYPING_INTERVAL_MS = 4000;
/** How long a call in flight at `stop` may go on before it is cut off. */
export const TYPING_STOP_WAIT_MS = 1000;

/** grammY's Node build types signals as the `abort-controller` polyfill's; a native signal works the same at run time. */
type GrammySignal = NonNullable<Parameters<Api['sendChatAction']>[3]>;

/** The abort's reason, made once: `abort()` without one builds a DOMException, stack trace included, every turn. */
const STOPPED = Object.freeze(new Error('typing indicator stopped'));

/**
 * "typing…" until `stop`. A call still in flight at `stop` (the turn ends as soon as its answer is out) is left to
 * finish, and cut off only after `TYPING_STOP_WAIT_MS`: aborting it at once would destroy its keep-alive connection
 * (and build an AbortError) on every quick turn, while Telegram has most likely taken it already.
 */
export function startTyping(api: Api, to: ConversationRef, logger: Logger, intervalMs: number = TYPING_INTERVAL_MS): WorkingIndicator {
  const { chat_id: chatId, ...thread } = targetOf(to);
  const controller = new AbortController();
  let stopped = false;
  let inFlight: Promise<void> | undefined;
  const tick = (): void => {
    if (inFlight || stopped) return;
    inFlight = api
      .sendChatAction(chatId, 'typing', thread, controller.signal as unknown as GrammySignal)
      .then(
        () => undefined,
        (error: unknown) => {
          if (!controller.signal.aborted) logger.debug({ chatId: to.chatId, error: String(error) }, 'typing indicator failed');
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      const call = inFlight;
      if (call === undefined) return;
      const cutOff = setTimeout(() => controller.abort(STOPPED), TYPING_STOP_WAIT_MS);
      cutOff.unref();
      void call.finally(() => clearTimeout(cutOff));
    },
  };
}
