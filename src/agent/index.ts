// The loop and its events
export { runAgent, MAX_ITERATIONS_FALLBACK, MAX_ITERATIONS_SUMMARY_PROMPT, INTERRUPTED_TOOL_RESULT, type AgentInput } from './agent-loop.js';
export { replaySteps, emptyProgress, type TurnStep, type TurnProgress, type LlmSpan, type ToolSpan } from './turn-steps.js';
export { DEFAULT_MAX_REPEATED_TOOL_CALLS, REPEATED_CALL_RESULT } from './loop-detection.js';
export type { AgentEvent, LlmCallPurpose, RunOutcome, TraceSpan, TerminalEvent } from './agent-events.js';
export { meteredModel, type MeterOptions } from './metered-model.js';
export { isTerminalEvent } from './agent-events.js';
export type { PriceTable } from './pricing.js';
export { addUsage } from './run-accounting.js';

// Output
export {
  sanitizeAssistantContent,
  stripEchoedSystemMessages,
  collapseDuplicateParagraphs,
  stripLeadingBlankLines,
} from './output/sanitize-assistant-content.js';
export { isSilentReply, stripSilentToken, couldBeSilentReply, finalizeReply, SILENT_TOKEN, type FinalReply } from './output/silent-reply.js';

// Input
export {
  scanInput,
  applyInputGuard,
  screenInput,
  truncateMessage,
  INPUT_GUARD_PATTERNS,
  INPUT_BLOCKED_REPLY,
  MAX_MESSAGE_CHARS,
  type InputGuardMode,
  type GuardedInput,
} from './input/input-guard.js';
export { markUntrustedToolOutput } from './input/untrusted-content.js';

// History, summarization, prompt
export * from './history/index.js';
export * from './tokens/index.js';
export * from './context/index.js';
export {
  shouldSummarize,
  summarizeConversation,
  summaryCutPoint,
  KEEP_LAST_MESSAGES,
  type SummarizeOptions,
  type SummarizeTrigger,
  type ConversationSummary,
} from './summarize.js';
export { flushMemoryFacts, parseFlushedFacts, MEMORY_FLUSH_PROMPT, MEMORY_FLUSH_SYSTEM, MEMORY_FLUSH_MAX_FACTS } from './memory-flush.js';
export * from './prompt/index.js';

// Tools
export * from './tools/index.js';
