import type { Api } from 'grammy';
import type { ConversationRef, WorkingIndicator } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { targetOf } from './conversation-target.js';

/** Telegram shows "typing…" for about 5 s per call, so it is renewed a little sooner. */
export const TYPING_INTERVAL_MS = 4000;

/** grammY's Node build types signals as the `abort-controller` polyfill's; a native signal works the same at run time. */
type GrammySignal = NonNullable<Parameters<Api['sendChatAction']>[3]>;

export function startTyping(api: Api, to: ConversationRef, logger: Logger, intervalMs: number = TYPING_INTERVAL_MS): WorkingIndicator {
  const { chat_id: chatId, ...thread } = targetOf(to);
  const controller = new AbortController();
  let inFlight = false;
  const tick = (): void => {
    if (inFlight || controller.signal.aborted) return;
    inFlight = true;
    api
      .sendChatAction(chatId, 'typing', thread, controller.signal as unknown as GrammySignal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) logger.debug({ chatId: to.chatId, error: String(error) }, 'typing indicator failed');
      })
      .finally(() => {
        inFlight = false;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      controller.abort();
    },
  };
}
