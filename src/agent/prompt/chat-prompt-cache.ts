import { SizeBoundedLru } from '../../core/size-bounded-lru.js';
import type { AgentTool } from '../tools/agent-tool.js';
import { buildSystemPrompt, type SystemPromptOptions } from './build-system-prompt.js';

export interface ChatPromptOptions extends SystemPromptOptions {
  /** The chat's own instructions (config overrides), below everything they may refine. */
  chatPrompt?: string | undefined;
}

interface Entry {
  identity: string | undefined;
  channelSection: string;
  tools: AgentTool[];
  chatPrompt: string | undefined;
  text: string;
}

/** Some 1,000 chats' prompts (about 4 KB each): beyond that, a prompt is built as before, every turn. */
const CACHE_BYTES = 4 * 1024 * 1024;

/**
 * A chat's system prompt before its context files and memories, built once and then handed out as the same
 * string while nothing it is made of changes. It is the same from one turn of a chat to the next by design (see
 * buildSystemPrompt): building it every turn was some 4 KB of garbage in a dozen pieces per turn, kept alive for
 * the whole model call, and a string the token estimate and the request body met for the first time each turn.
 */
export class ChatPromptCache {
  readonly #entries = new SizeBoundedLru<Entry>(CACHE_BYTES);

  prompt(options: ChatPromptOptions): string {
    const { chatContext } = options;
    const chatPrompt = options.chatPrompt?.trim() || undefined;
    // the short inputs make the key; the long ones (identity, the channel's section, the tools) are compared
    const key = `${options.workspace ?? ''}\u0000${chatContext.chatType}\u0000${chatContext.groupName ?? ''}\u0000${chatContext.senderName ?? ''}`;
    const cached = this.#entries.get(key);
    if (
      cached !== undefined &&
      cached.identity === options.identity &&
      cached.channelSection === options.channelSection &&
      cached.chatPrompt === chatPrompt &&
      sameTools(cached.tools, options.tools)
    ) {
      return cached.text;
    }
    const assembled = buildSystemPrompt(options);
    const text = chatPrompt ? `${assembled}\n\n## Instructions for this chat\n${chatPrompt}` : assembled;
    this.#entries.set(key, { identity: options.identity, channelSection: options.channelSection, tools: options.tools, chatPrompt, text }, 2 * (text.length + key.length) + 200);
    return text;
  }
}

function sameTools(cached: AgentTool[], tools: AgentTool[]): boolean {
  if (cached === tools) return true;
  if (cached.length !== tools.length) return false;
  for (let index = 0; index < tools.length; index++) {
    const was = cached[index]!;
    const is = tools[index]!;
    // a tool made afresh for each turn (a sub-agent's spawn tool) is the same to the prompt when it reads the same
    if (was !== is && (was.name !== is.name || was.description !== is.description || was.category !== is.category)) return false;
  }
  return true;
}
