import type { ChatMessage, MessagePart } from '../../core/chat-message.js';
import type { ToolSpec } from '../../llm/chat-model.js';
import { limitHistoryTurns } from '../history/limit-history-turns.js';
import { CLEARED_TOOL_RESULT, pruneToolResults, softTrimToolResult } from '../history/prune-tool-results.js';
import { repairToolPairing } from '../history/repair-tool-pairing.js';
import { summaryPreambleLength } from '../history/summary-preamble.js';
import { shouldSummarize, summaryCutPoint } from '../summarize.js';
import { estimateMessageTokens, estimateTextTokens, unroundedTextTokens } from '../tokens/estimate-tokens.js';
import { usableTokens, type ContextBudget } from './context-budget.js';

/** One request, split where the history pipeline needs to know: what came before this turn, and the turn. */
export interface ContextParts {
  system: string;
  tools: ToolSpec[] | undefined;
  /** The summary preamble and the stored history, oldest first. */
  prior: ChatMessage[];
  /** This turn: its user message(s), then what the loop added so far. */
  turn: ChatMessage[];
}

export interface ContextOptions {
  budget: ContextBudget;
  historyTurns: number;
  /** The provider's correction of our estimate (see tokens/token-calibration.ts). */
  factor: number;
}

export interface FittedContext {
  messages: ChatMessage[];
  /** Estimated prompt tokens of the whole request (system prompt, tool definitions, messages), corrected. */
  tokens: number;
  /** Uncorrected estimate, for calibrating against the provider's count. */
  rawTokens: number;
  /** `compact`: over the compaction threshold even after pruning; summarize the session if possible, then fit again. */
  pressure: 'ok' | 'compact';
}

/** Per tool spec (stable objects, see agent-loop.ts): a request's tools are estimated once for the process. */
const toolTokens = new WeakMap<ToolSpec, number>();
/**
 * System prompt lines estimated so far. A prompt differs from session to session in a line or two (the chat,
 * the workspace) and repeats turn after turn: it is estimated line by line, each line once.
 */
const lineTokens = new Map<string, number>();
const LINE_TOKENS_LIMIT = 4_096;

/** Estimated tokens of a request's tool definitions (each spec estimated once). */
export function toolsTokens(tools: ToolSpec[] | undefined): number {
  if (!tools?.length) return 0;
  let total = 2;
  for (const tool of tools) {
    let tokens = toolTokens.get(tool);
    if (tokens === undefined) {
      tokens = estimateTextTokens(JSON.stringify(tool)) + 1;
      toolTokens.set(tool, tokens);
    }
    total += tokens;
  }
  return total;
}

/** `estimateTextTokens(system)`, line by line from the cache. */
export function systemTokensOf(system: string): number {
  let total = 0;
  for (let start = 0; start < system.length; ) {
    const newline = system.indexOf('\n', start);
    const end = newline < 0 ? system.length : newline + 1;
    const line = system.slice(start, end);
    let tokens = lineTokens.get(line);
    if (tokens === undefined) {
      tokens = unroundedTextTokens(line);
      if (lineTokens.size >= LINE_TOKENS_LIMIT) lineTokens.clear();
      lineTokens.set(line, tokens);
    }
    total += tokens;
    start = end;
  }
  // the sum of fractions may land a hair above a whole number the single pass gives exactly
  return Math.ceil(total - 1e-9);
}

function fixedRawTokens(parts: ContextParts): number {
  return systemTokensOf(parts.system) + toolsTokens(parts.tools);
}

function rawTokensOf(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

/**
 * Before every model call (seed 002 §13, seed 004): the history pipeline over the whole request, its fill
 * measured with the system prompt and tool definitions counted: the last HISTORY_TURNS turns, old tool
 * results trimmed (soft) or cleared (hard, with the 50K floor), tool pairing repaired.
 */
export function fitContext(parts: ContextParts, options: ContextOptions): FittedContext {
  const fixed = fixedRawTokens(parts);
  const usable = usableTokens(options.budget);
  const corrected = (raw: number) => Math.ceil(raw * options.factor);
  const limited = limitHistoryTurns([...parts.prior, ...parts.turn], options.historyTurns);
  const pruned = pruneToolResults(limited, {
    contextWindow: usable,
    reservedTokens: corrected(fixed),
    estimateTokens: (messages) => corrected(rawTokensOf(messages)),
  });
  const messages = repairToolPairing(pruned);
  const rawTokens = fixed + rawTokensOf(messages);
  const tokens = corrected(rawTokens);
  return { messages, tokens, rawTokens, pressure: tokens > usable * options.budget.compactAt ? 'compact' : 'ok' };
}

/** What a stored history costs in a request (summary preamble and messages, old tool results pruned), corrected. */
export function historyTokens(history: ChatMessage[], options: ContextOptions): number {
  return fitContext({ system: '', tools: undefined, prior: history, turn: [] }, options).tokens;
}

/** Tool output is counted at most at its trimmed size: pruning shrinks it soon anyway, a summary would not. */
const DUE_TOOL_RESULT_CHARS = 3_000;

/**
 * A history's tokens for deciding on a summary, and the tokens a summary would replace (all but the last
 * messages), each with tool output counted at most at its trimmed size.
 */
export function summarizableTokens(history: ChatMessage[], options: ContextOptions): { total: number; summarizable: number; messageCount: number } {
  const pinned = summaryPreambleLength(history);
  const messages = history
    .slice(pinned)
    .map((message) => (message.role === 'tool' ? mapToolResults(message, (content) => headAndTail(content, DUE_TOOL_RESULT_CHARS)) : message));
  return {
    total: historyTokens([...history.slice(0, pinned), ...messages], options),
    summarizable: historyTokens(messages.slice(0, summaryCutPoint(messages)), options),
    messageCount: messages.length,
  };
}

/** Whether the history (since the last summary) should be summarized now: see `shouldSummarize`. */
export function summaryDue(history: ChatMessage[], options: ContextOptions): boolean {
  const { total, summarizable, messageCount } = summarizableTokens(history, options);
  return shouldSummarize({ messageCount, estimatedTokens: total, summarizableTokens: summarizable, contextWindow: usableTokens(options.budget) });
}

const KEEP_CHARS_FLOOR = 600;

/**
 * The last resort when a request is over `targetTokens` after pruning and compaction (or the summarizer
 * failed). In the order that keeps most of the conversation and of the cached prompt prefix: soft-trim every
 * older tool result (as pruning would, byte for byte), then this turn's own long outputs the same way (so the
 * next request repeats these bytes), clear older tool results, drop the oldest turns before this one (whole
 * turns, so no call loses its result; the summary preamble stays), then cut this turn's texts further. Never
 * drops this turn's user message.
 */
export function squeezeContext(parts: ContextParts, options: ContextOptions & { targetTokens: number }): FittedContext {
  const fixed = fixedRawTokens(parts);
  const target = options.targetTokens / options.factor;
  let prior = [...parts.prior];
  let turn = [...parts.turn];
  const total = () => fixed + rawTokensOf(prior) + rawTokensOf(turn);
  const done = (): FittedContext => {
    const messages = repairToolPairing([...prior, ...turn]);
    const rawTokens = fixed + rawTokensOf(messages);
    return { messages, tokens: Math.ceil(rawTokens * options.factor), rawTokens, pressure: 'ok' };
  };
  const cutTurn = (floor: number) => {
    for (let limit = 32_000; total() > target && limit >= floor; limit = Math.floor(limit / 2)) {
      turn = turn.map((message) => mapTexts(message, (text) => headAndTail(text, limit)));
    }
  };

  const protectedFrom = lastAssistantIndex(turn);
  const older = (message: ChatMessage, index: number) => message.role === 'tool' && index < protectedFrom;
  prior = prior.map((message) => (message.role === 'tool' ? mapToolResults(message, (content) => softTrimToolResult(content)) : message));
  turn = turn.map((message, index) => (older(message, index) ? mapToolResults(message, (content) => softTrimToolResult(content)) : message));
  if (total() <= target) return done();

  // this turn's latest outputs take the same head-and-tail form they will have once they are older, so the
  // request after this one (the next turn) starts with the very bytes this one sent: the prefix stays cached
  turn = turn.map((message) => (message.role === 'tool' ? mapToolResults(message, (content) => softTrimToolResult(content)) : message));
  if (total() <= target) return done();

  const clear = (message: ChatMessage): ChatMessage => mapToolResults(message, () => CLEARED_TOOL_RESULT);
  prior = prior.map((message) => (message.role === 'tool' ? clear(message) : message));
  turn = turn.map((message, index) => (older(message, index) ? clear(message) : message));
  if (total() <= target) return done();

  const pinned = summaryPreambleLength(prior);
  while (total() > target && prior.length > pinned) {
    const nextTurn = prior.findIndex((message, index) => index > pinned && message.role === 'user');
    prior = [...prior.slice(0, pinned), ...(nextTurn === -1 ? [] : prior.slice(nextTurn))];
  }
  if (total() <= target) return done();

  cutTurn(KEEP_CHARS_FLOOR);
  return done();
}

function lastAssistantIndex(messages: ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) if (messages[index]?.role === 'assistant') return index;
  return messages.length;
}

function mapToolResults(message: ChatMessage, change: (content: string) => string): ChatMessage {
  const parts = message.parts.map((part): MessagePart => (part.type === 'tool-result' ? { ...part, content: change(part.content) } : part));
  return { ...message, parts };
}

function mapTexts(message: ChatMessage, change: (text: string) => string): ChatMessage {
  let changed = false;
  const parts = message.parts.map((part): MessagePart => {
    if (part.type === 'tool-result') {
      const content = change(part.content);
      changed ||= content !== part.content;
      return content === part.content ? part : { ...part, content };
    }
    if (part.type === 'text') {
      const text = change(part.text);
      changed ||= text !== part.text;
      return text === part.text ? part : { ...part, text };
    }
    return part;
  });
  return changed ? { ...message, parts } : message;
}

/** The head and tail of a long text with a note of what was cut; unchanged when it fits. */
export function headAndTail(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n\n[... ${text.length - 2 * half} characters cut to fit the context window ...]\n\n${text.slice(-half)}`;
}
