import type { ChatMessage } from '../../core/chat-message.js';
import type { PromptSplit } from '../../core/trace-span.js';
import type { ToolSpec } from '../../llm/chat-model.js';
import { summaryPreambleLength } from '../history/summary-preamble.js';
import { estimateMessageTokens } from '../tokens/estimate-tokens.js';
import { systemTokensOf, toolsTokens } from './fit-context.js';

/** What the turn knows of its prompt's parts: the memory section's text and the new message objects. */
export interface PromptMarkers {
  /** The memory section as it was put into the system prompt ('' when there is none). */
  memory: string;
  /** The turn's new user message(s), the same objects the request carries. */
  newMessages: ReadonlySet<ChatMessage>;
}

/**
 * How one request splits into system prompt, tool schemas, memories, summary, history, the new message and the
 * turn so far, in the estimator's tokens (each part estimated as the context fitting estimates it, from the same
 * caches, so a call costs a few lookups). The parts add up to the request's raw estimate.
 */
export function promptSplitOf(request: { system: string; tools?: ToolSpec[] | undefined; messages: ChatMessage[] }, markers: PromptMarkers): PromptSplit {
  const systemTokens = systemTokensOf(request.system);
  const memories = markers.memory !== '' && request.system.includes(markers.memory) ? Math.min(systemTokens, systemTokensOf(markers.memory)) : 0;
  const split: PromptSplit = { system: systemTokens - memories, tools: toolsTokens(request.tools), memories, summary: 0, history: 0, message: 0, turn: 0 };
  const { messages } = request;
  const summaryLength = summaryPreambleLength(messages);
  const firstNew = messages.findIndex((message) => markers.newMessages.has(message));
  messages.forEach((message, index) => {
    const tokens = estimateMessageTokens(message);
    if (index < summaryLength) split.summary += tokens;
    else if (markers.newMessages.has(message)) split.message += tokens;
    else if (firstNew < 0 || index < firstNew) split.history += tokens;
    else split.turn += tokens;
  });
  return split;
}

/** The sum of a split's parts. */
export function promptSplitTotal(split: PromptSplit): number {
  return split.system + split.tools + split.memories + split.summary + split.history + split.message + split.turn;
}
