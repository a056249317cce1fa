import { userText, type ChatMessage } from '../core/chat-message.js';
import type { AgentInput } from './agent-loop.js';
import { repairToolPairing } from './history/repair-tool-pairing.js';

export const MEMORY_FLUSH_PROMPT = 'Store durable memories now, if nothing to store reply NO_REPLY.';

const MEMORY_FLUSH_SYSTEM =
  'The conversation history is about to be compacted. Save what is worth remembering across conversations (facts about the user, ' +
  'preferences, decisions, ongoing work) in MEMORY.md in your workspace: read it first, then write it back updated, short and organized. ' +
  'Do not write secrets. Reply NO_REPLY when you are done or when there is nothing to store.';

const MEMORY_TOOLS = new Set(['read_file', 'write_file']);

export type MemoryFlushOptions = Omit<AgentInput, 'system' | 'maxIterations'> & {
  /** Recent messages shown to the model (default 10). */
  recentMessages?: number;
  maxIterations?: number;
};

/**
 * The input of the short tool turn that runs before summarization: recent messages, only
 * `read_file`/`write_file`, at most 5 iterations. Run it with `runAgent` under a timeout.
 */
export function memoryFlushTurn(options: MemoryFlushOptions): AgentInput {
  const { recentMessages = 10, maxIterations = 5, messages, tools, ...rest } = options;
  let recent: ChatMessage[] = repairToolPairing(messages.slice(-recentMessages));
  const firstUser = recent.findIndex((message) => message.role === 'user');
  recent = firstUser === -1 ? [] : recent.slice(firstUser);
  return {
    ...rest,
    system: MEMORY_FLUSH_SYSTEM,
    messages: [...recent, userText(MEMORY_FLUSH_PROMPT)],
    tools: tools.filter((tool) => MEMORY_TOOLS.has(tool.name)),
    maxIterations,
  };
}
