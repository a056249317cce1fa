import { contextBudget, fitContext, squeezeContext, summarizableTokens, summaryPreambleLength, usableTokens, type ContextControl, type LlmSpan, type TokenCalibration } from '../agent/index.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { Logger } from '../observability/logger.js';
import type { Compactor } from './compaction.js';

export interface ContextControllerOptions {
  model: ChatModel;
  calibration: TokenCalibration;
  historyTurns: number;
  sessionKey: string;
  /** The summary preamble and stored history the turn started with. */
  prior: ChatMessage[];
  /** How many leading messages of every request are `prior` (the rest is this turn). */
  priorLength: number;
  /** Absent: never compacted mid-turn. */
  compactor: Compactor | undefined;
  /** The preamble and history as stored now (after a summary was written). */
  loadPrior(): Promise<ChatMessage[]>;
  logger: Logger;
}

/** A mid-turn summary must free at least this share of the usable window; otherwise the request is trimmed instead. */
const MIN_HISTORY_SHARE_TO_COMPACT = 0.2;

/** Each refusal as too long makes the next estimate this much more pessimistic. */
const OVERFLOW_MARGIN = 1.25;

/**
 * Refused this many times in a row, the request goes out without the stored history (the summary stays): our
 * estimate is plainly wrong (a window smaller than configured), and the turn must not fail for old messages.
 * Refused even then, the turn itself is too long (turn/too-long.ts).
 */
const DROP_HISTORY_AFTER_OVERFLOWS = 2;

/**
 * Context pressure, before every model call of a turn: the history pipeline over the whole request; above
 * the compaction threshold the session is summarized once mid-turn (under its lock, like any summary); when
 * that is not enough, not possible, or the summarizer fails, the oldest turns are trimmed instead
 * (squeezeContext). A provider's "too long" refusal shrinks harder, a second one leaves the stored history out.
 * Never throws but for an abort.
 */
export function createContextController(options: ContextControllerOptions): ContextControl {
  const budget = contextBudget(options.model.contextWindow, options.model.maxOutputTokens);
  const usable = usableTokens(budget);
  const calibrationKey = `${options.model.provider}:${options.model.model}`;
  let prior = options.prior;
  let compactionTried = false;

  async function compactMidTurn(signal: AbortSignal, onSpan: (span: LlmSpan) => void): Promise<void> {
    compactionTried = true;
    if (!options.compactor) return;
    try {
      // the turn's model: the summary and the memory flush are charged to the turn's budgets and join its spans
      const result = await options.compactor.compact(options.sessionKey, { force: true, signal, model: options.model, onSpan });
      if (result === 'summarized') prior = await options.loadPrior();
      options.logger.info({ sessionKey: options.sessionKey, result }, 'context pressure: compacted mid-turn');
    } catch (error) {
      if (signal.aborted) throw error;
      // refused, failed or over COMPACTION_TIMEOUT_MS: the squeeze below needs no model call
      options.logger.warn({ err: error, sessionKey: options.sessionKey }, 'summarizer failed mid-turn; trimming the oldest turns instead');
    }
  }

  return {
    async prepare(request, { overflowed, signal, onSpan }) {
      const factor = options.calibration.factor(calibrationKey) * OVERFLOW_MARGIN ** overflowed;
      const turn = request.messages.slice(options.priorLength);
      const parts = () => ({ system: request.system, tools: request.tools, prior, turn });
      const fitOptions = { budget, historyTurns: options.historyTurns, factor };
      let fitted = fitContext(parts(), fitOptions);
      // a summary replaces the stored history but its last messages: worth it only when that frees a good share;
      // after a refusal as too long the estimate is proven wrong, so the summary is tried anyway
      const compactionHelps = () => summarizableTokens(prior, fitOptions).summarizable > usable * MIN_HISTORY_SHARE_TO_COMPACT;
      if (!compactionTried && (overflowed > 0 || (fitted.pressure === 'compact' && compactionHelps()))) {
        await compactMidTurn(signal, onSpan);
        fitted = fitContext(parts(), fitOptions);
      }
      if (overflowed >= DROP_HISTORY_AFTER_OVERFLOWS && prior.length > summaryPreambleLength(prior)) {
        // for the rest of the turn: its later calls would be refused the same way
        prior = prior.slice(0, summaryPreambleLength(prior));
        options.logger.warn({ sessionKey: options.sessionKey, overflowed }, 'refused as too long again: the stored history is left out of this turn');
      }
      if (fitted.tokens > usable || overflowed > 0) {
        fitted = squeezeContext(parts(), { ...fitOptions, targetTokens: Math.floor(usable * budget.compactAt) });
        options.logger.warn({ sessionKey: options.sessionKey, tokens: fitted.tokens, usable, overflowed }, 'context pressure: trimmed to fit');
      }
      return { request: { ...request, messages: fitted.messages }, rawTokens: fitted.rawTokens };
    },
    observe(prepared, usage) {
      if (prepared.rawTokens !== undefined) options.calibration.observe(calibrationKey, prepared.rawTokens, usage);
    },
  };
}
