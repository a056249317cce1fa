import {
  contextBudget,
  DEFAULT_HISTORY_TURNS,
  meteredModel,
  summarizeConversation,
  summaryCutPoint,
  summaryDue,
  summaryPreamble,
  withOmittedAsNotes,
  type LlmCallPurpose,
  type LlmSpan,
  type PriceTable,
} from '../agent/index.js';
import type { ChatMessage } from '../core/chat-message.js';
import { BotError } from '../core/errors.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { Logger } from '../observability/logger.js';
import type { SessionLockPort } from '../core/turn-ports.js';
import { appendRunSpans, findSession, latestRunIdOf, latestSummary, loadHistory, saveSummary, type SessionRow, type StoreDatabase } from '../store/index.js';

export type CompactionResult = 'summarized' | 'locked' | 'not-due' | 'nothing-to-summarize' | 'no-session';

/** COMPACTION_TIMEOUT_MS: the memory flush and the summary together, while a turn (and its user) may be waiting. */
export const DEFAULT_COMPACTION_TIMEOUT_MS = 30_000;
/** Of that time, what the memory flush may take: the summary, which is what frees the context, gets the rest. */
const FLUSH_SHARE = 1 / 3;

export interface CompactOptions {
  force?: boolean;
  /** The turn's signal (/stop, shutdown, lost lease): aborts the memory flush and the summary mid-request. */
  signal?: AbortSignal;
  /** The model to call, charging the budgets of whoever caused the compaction (a turn's); absent: the session's agent's. */
  model?: ChatModel;
  /** Each model call made (memory flush, summary) as it ends, as an LLM span of the turn that caused it. */
  onSpan?: (span: LlmSpan) => void;
}

/** What caused a compaction outside a turn: its calls are charged to that message's user, chat and agent, and stored with that run. */
export interface CompactionCause {
  message: InboundMessage;
  /** The run the calls are added to; absent: the session's latest run. */
  runId?: string;
}

export interface Compactor {
  /** Summarizes the session's older history when due (or always with `force`); skips when another holder has the lock. */
  compact(sessionKey: string, options?: CompactOptions): Promise<CompactionResult>;
  /** The same outside a turn (`/compact`, after a stored turn): charged to `cause`, its calls added to its run. */
  compactFor(sessionKey: string, cause: CompactionCause | undefined, options?: { force?: boolean }): Promise<CompactionResult>;
  /** Fire-and-forget after a stored turn: never delays the reply; settles before shutdown via `idle()`. */
  compactInBackground(sessionKey: string, cause?: CompactionCause): void;
  idle(): Promise<void>;
}

export interface CompactorDependencies {
  db: StoreDatabase;
  model: ChatModel;
  /** The session's agent's model (config file agents); absent: `model` for every session. */
  modelFor?: (sessionKey: string) => ChatModel;
  lock: SessionLockPort;
  /** A summary was saved: the session's history changed for every process that cached it. */
  historyChanged?: (sessionKey: string) => Promise<void>;
  logger: Logger;
  /**
   * The memory flush (src/memory): called once before a summary drops `dropped`, to save durable facts. A failure
   * is logged and the summary goes ahead (memory is best effort; the messages stay stored).
   */
  flushMemory?: (session: SessionRow, dropped: ChatMessage[], model: ChatModel, signal?: AbortSignal) => Promise<void>;
  /** COMPACTION_TIMEOUT_MS; default 30 s. */
  timeoutMs?: number;
  /** Prices of the spans (LLM_PRICES over the built-in table). */
  prices?: PriceTable;
  /** The model charging a message's daily budgets (src/budgets); absent: compaction outside a turn is not charged. */
  chargedModel?: (model: ChatModel, message: InboundMessage) => Promise<ChatModel>;
  clock?: () => number;
}

/**
 * Compaction never deletes messages: it stores a summary and the seq it covers; later turns load from there.
 * The memory flush and the summary are bounded together (COMPACTION_TIMEOUT_MS): past it the summary is given
 * up (a turn falls back to trimming), and the turn's signal cancels both.
 */
export function createCompactor(deps: CompactorDependencies): Compactor {
  const running = new Set<Promise<unknown>>();
  const timeoutMs = deps.timeoutMs ?? DEFAULT_COMPACTION_TIMEOUT_MS;
  const clock = deps.clock ?? Date.now;

  async function compact(sessionKey: string, options: CompactOptions = {}): Promise<CompactionResult> {
    const session = await findSession(deps.db, sessionKey);
    if (!session) return 'no-session';
    const model = options.model ?? deps.modelFor?.(sessionKey) ?? deps.model;
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
      const metered = (purpose: LlmCallPurpose) =>
        options.onSpan ? meteredModel(model, { purpose, prices: deps.prices, clock, onSpan: options.onSpan }) : model;
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      let result;
      try {
        const dropped = messages.slice(0, summaryCutPoint(messages));
        if (deps.flushMemory && dropped.length > 0) {
          const flushSignal = AbortSignal.any([signal, AbortSignal.timeout(Math.floor(timeoutMs * FLUSH_SHARE))]);
          await deps.flushMemory(session, dropped, metered('memory-flush'), flushSignal).catch((error: unknown) => {
            if (signal.aborted) throw error;
            deps.logger.warn({ err: error, sessionKey }, 'memory flush before the summary failed; summarizing anyway');
          });
        }
        result = await summarizeConversation(metered('summary'), messages, {
          timeoutMs,
          signal,
          ...(previous ? { previousSummary: previous.summary } : {}),
        });
      } catch (error) {
        if (deadline.aborted && !options.signal?.aborted) throw new BotError('timeout', `compaction took longer than ${timeoutMs} ms (COMPACTION_TIMEOUT_MS)`, { cause: error });
        throw error;
      }
      if (!result || !lock.held) return 'nothing-to-summarize';
      const coversUpToSeq = history[result.coversCount - 1]!.seq;
      await saveSummary(deps.db, session.id, result.summary, coversUpToSeq, session.conversation);
      await deps.historyChanged?.(sessionKey);
      deps.logger.info({ sessionKey, coversUpToSeq, summarized: result.coversCount }, 'conversation summarized');
      return 'summarized';
    } finally {
      await lock.release().catch(() => undefined);
    }
  }

  async function compactFor(sessionKey: string, cause: CompactionCause | undefined, options: { force?: boolean } = {}): Promise<CompactionResult> {
    const spans: LlmSpan[] = [];
    const base = deps.modelFor?.(sessionKey) ?? deps.model;
    const model = cause && deps.chargedModel ? await deps.chargedModel(base, cause.message) : base;
    try {
      return await compact(sessionKey, { ...options, model, onSpan: (span) => spans.push(span) });
    } finally {
      // one write, only when a model was called: the calls join the run that caused them
      if (spans.length > 0) await recordSpans(sessionKey, cause?.runId, spans);
    }
  }

  async function recordSpans(sessionKey: string, runId: string | undefined, spans: LlmSpan[]): Promise<void> {
    try {
      const session = runId ? undefined : await findSession(deps.db, sessionKey);
      const target = runId ?? (session ? await latestRunIdOf(deps.db, session.id) : undefined);
      if (target) await appendRunSpans(deps.db, target, spans);
    } catch (error) {
      deps.logger.warn({ err: error, sessionKey, runId, spans: spans.length }, 'could not add the compaction calls to their run');
    }
  }

  return {
    compact,
    compactFor,
    compactInBackground(sessionKey, cause) {
      const task = compactFor(sessionKey, cause)
        .catch((error: unknown) => deps.logger.warn({ err: error, sessionKey }, 'background summarization failed'))
        .finally(() => running.delete(task));
      running.add(task);
    },
    idle: async () => {
      await Promise.allSettled([...running]);
    },
  };
}
