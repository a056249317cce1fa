import { flushMemoryFacts } from '../agent/memory-flush.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { Logger } from '../observability/logger.js';
import type { SessionRow } from '../store/schema/sessions.js';
import type { MemoryService } from './memory-service.js';

/**
 * The compactor's memory flush: ask the session's model once for durable facts, store them merged. Bounded and
 * cancelled by the compactor's signal (its share of COMPACTION_TIMEOUT_MS, the turn's /stop).
 */
export function createMemoryFlush(service: MemoryService, logger: Logger) {
  return async (session: SessionRow, dropped: ChatMessage[], model: ChatModel, signal?: AbortSignal): Promise<void> => {
    const facts = await flushMemoryFacts(model, dropped, signal ? { signal } : {});
    if (facts.length === 0) return;
    const scope = service.scopeOf(session, session.userId ?? session.chatId);
    const stored = await service.storeFlushed(scope, facts);
    logger.info({ sessionKey: session.key, facts: facts.length, stored }, 'memory flushed before the summary');
  };
}
