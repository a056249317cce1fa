export { contextBudget, usableTokens, DEFAULT_COMPACT_AT, DEFAULT_RESERVED_OUTPUT_TOKENS, type ContextBudget } from './context-budget.js';
export { fitContext, historyTokens, summarizableTokens, summaryDue, squeezeContext, headAndTail, type ContextParts, type ContextOptions, type FittedContext } from './fit-context.js';
export type { ContextControl, PreparedRequest } from './context-control.js';
export { promptSplitOf, promptSplitTotal, type PromptMarkers } from './prompt-split.js';
