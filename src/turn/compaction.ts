import { contextBudget, DEFAULT_HISTORY_TURNS, withOmittedAsNotes, summarizeConversation, summaryCutPoint, summaryDue, summaryPreamble } from '../agent/index.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { Logger } from '../observability/logger.js';
import type { SessionLock } from '../queue/session-lock.js';
import { findSession, latestSummary, loadHistory, saveSummary, type SessionRow, type StoreDatabase } from '../store/index.js';

export type CompactionResult = 'summarized' | 'locked' | 'not-due' | 'nothing-to-summarize' | 'no-session';

const SUMMARY_TIMEOUT_MS = 120_000;

export interface Compactor {
  /** Summarizes the session's older history when due (or always with `force`); skips when another holder has the lock. */
  compact(sessionKey: string, options?: { force?: boolean; signal?: AbortSignal }): Promise<CompactionResult>;
  /** Fire-and-forget after a stored turn: never delays the reply; settles before shutdown via `idle()`. */
  compactInBackground(sessionKey: string): void;
  idle(): Promise<void>;
}

/** Compaction never deletes messages: it stores a summary and the seq it covers; later turns load from there. */
export function createCompactor(deps: {
  db: StoreDatabase;
  model: ChatModel;
  /** The session's agent's model (config file agents); absent: `model` for every session. */
  modelFor?: (sessionKey: string) => ChatModel;
  lock: SessionLock;
  logger: Logger;
  /**
   * The memory flush (src/memory): called once before a summary drops `dropped`, to save durable facts. A failure
   * is logged and the summary goes ahead (memory is best effort; the messages stay stored).
   */
  flushMemory?: (session: SessionRow, dropped: ChatMessage[], model: ChatModel, signal?: AbortSignal) => Promise<void>;
}): Compactor {
  const running = new Set<Promise<unknown>>();

  async function compact(sessionKey: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<CompactionResult> {
    const session = await findSession(deps.db, sessionKey);
    if (!session) return 'no-session';
    const model = deps.modelFor?.(sessionKey) ?? deps.model;
    const lock = await deps.lock.tryAcquire('summarize', sessionKey);
    if (!lock) return 'locked';
    try {
      const previous = await latestSummary(deps.db, session.id);
      const history = withOmittedAsNotes(await loadHistory(deps.db, session.id, previous ? { fromSeq: previous.coversUpToSeq + 1 } : {}));
      const messages = history.map(({ role, parts }) => ({ role, parts }));
      const due = summaryDue([...(previous ? summaryPreamble(previous.summary) : []), ...messages], {
        budget: contextBudget(model.contextWindow, model.maxOutputTokens),
        historyTurns: DEFAULT_HISTORY_TURNS,
        factor: 1,
      });
      if (!due && !options.force) return 'not-due';
      const dropped = messages.slice(0, summaryCutPoint(messages));
      if (deps.flushMemory && dropped.length > 0) {
        await deps.flushMemory(session, dropped, model, options.signal).catch((error: unknown) =>
          deps.logger.warn({ err: error, sessionKey }, 'memory flush before the summary failed; summarizing anyway'),
        );
      }
      const result = await summarizeConversation(model, messages, {
        timeoutMs: SUMMARY_TIMEOUT_MS,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(previous ? { previousSummary: previous.summary } : {}),
      });
      if (!result || !lock.held) return 'nothing-to-summarize';
      const coversUpToSeq = history[result.coversCount - 1]!.seq;
      await saveSummary(deps.db, session.id, result.summary, coversUpToSeq);
      deps.logger.info({ sessionKey, coversUpToSeq, summarized: result.coversCount }, 'conversation summarized');
      return 'summarized';
    } finally {
      await lock.release().catch(() => undefined);
    }
  }

  return {
    compact,
    compactInBackground(sessionKey) {
      const task = compact(sessionKey)
        .catch((error: unknown) => deps.logger.warn({ err: error, sessionKey }, 'background summarization failed'))
        .finally(() => running.delete(task));
      running.add(task);
    },
    idle: async () => {
      await Promise.allSettled([...running]);
    },
  };
}
