import type { AgentTool } from '../tools/agent-tool.js';
import {
  BUILT_IN_PERSONA,
  chatContextSection,
  messagingSection,
  safetySection,
  silentRepliesSection,
  timeSection,
  toolingSection,
  type ChatContext,
} from './prompt-sections.js';

export interface SystemPromptOptions {
  /** `SYSTEM_PROMPT`: replaces the built-in persona at the top. */
  identity?: string | undefined;
  /** The channel's formatting rules (`Channel.promptSection()`). */
  channelSection: string;
  chatContext: ChatContext;
  tools: AgentTool[];
  workspace?: string | undefined;
}

/**
 * Identity, tools, safety, time, messaging, chat context and the NO_REPLY convention, in that order. Nothing in it
 * changes from one turn of a session to the next, so providers can cache it with the tool definitions.
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const identity = options.identity?.trim() || BUILT_IN_PERSONA;
  return [
    identity,
    toolingSection(options.tools, options.workspace),
    safetySection(),
    timeSection(),
    messagingSection(options.channelSection),
    chatContextSection(options.chatContext),
    silentRepliesSection(),
  ]
    .filter((section) => section !== '')
    .join('\n\n');
}

export interface SubagentPromptOptions {
  /** The child agent's own identity prompt (its SYSTEM_PROMPT / config file `systemPrompt`). */
  identity?: string | undefined;
  tools: AgentTool[];
  workspace?: string | undefined;
}

export const SUBAGENT_TASK_SECTION = [
  '## Your task',
  'You are a sub-agent: another assistant handed you one task, in the message below, and will read your final answer as the result of its tool call.',
  'You cannot see its conversation and nobody can answer your questions: work with what the task says and what your tools find.',
  'Your tools only read; you cannot change files, run commands or send anything. Finish with a complete, self-contained answer: what you found, and what you could not find out.',
].join('\n');

/**
 * The minimal prompt of a sub-agent (CONTRACT §18): identity, tools, safety and its task. No memory, no channel's
 * messaging rules, no chat context and no NO_REPLY convention: it writes for another agent, not for a chat.
 */
export function buildSubagentPrompt(options: SubagentPromptOptions): string {
  const identity = options.identity?.trim() || BUILT_IN_PERSONA;
  return [identity, SUBAGENT_TASK_SECTION, toolingSection(options.tools, options.workspace), safetySection()].filter((section) => section !== '').join('\n\n');
}
