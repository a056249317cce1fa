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
