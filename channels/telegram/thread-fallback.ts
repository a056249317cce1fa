import type { Api, Transformer } from 'grammy';
import type { Logger } from '../../src/observability/logger.js';

/**
 * Telegram's answers when it will not post into a forum topic or a private-chat topic: the thread is gone
 * ("message thread not found", also seen for every DM topic after a Bot API roll-out), or the topic is closed
 * or deleted (MTProto's TOPIC_CLOSED / TOPIC_DELETED passed through as "Bad Request: …").
 */
const THREAD_REFUSED = /message thread not found|TOPIC_CLOSED|TOPIC_DELETED/i;

export function isThreadRefused(errorCode: number, description: string): boolean {
  return errorCode === 400 && THREAD_REFUSED.test(description);
}

/**
 * A call aimed at a topic that Telegram refuses is made again without `message_thread_id` (the main chat, or the
 * "General" topic of a forum), with a warning naming the chat and the thread. The refusal posted nothing, so the
 * second call is the only message: a recorded delivery part still gets exactly one message id. `onRefused` learns
 * of each refusal (the topic's scheduled tasks pause).
 */
export function installThreadFallback(api: Api, logger: Logger, onRefused?: (chatId: number | string, threadId: number, description: string) => void): void {
  const fallback: Transformer = async (previous, method, payload, signal) => {
    const result = await previous(method, payload, signal);
    if (result.ok || !isThreadRefused(result.error_code, result.description)) return result;
    const { message_thread_id: threadId, ...withoutThread } = payload as Record<string, unknown>;
    if (threadId === undefined) return result;
    const chatId = (payload as { chat_id?: unknown }).chat_id;
    logger.warn({ method, chatId, threadId, description: result.description }, 'telegram refused the topic, sending to the main chat instead');
    if (typeof chatId === 'number' || typeof chatId === 'string') onRefused?.(chatId, Number(threadId), result.description);
    return previous(method, withoutThread as typeof payload, signal);
  };
  api.config.use(fallback);
}
