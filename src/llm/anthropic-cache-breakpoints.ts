import type { MessageParam, TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Anthropic caches a prompt prefix only up to an explicit `cache_control` breakpoint (at most four per
 * request). We place them where the prefix is stable: the tool definitions, the system prompt (both
 * byte-identical from turn to turn), the end of the history before this turn's user message (what the
 * next turn will send again), and the end of the request (what the next call of this turn sends again).
 */
export function withCacheBreakpoints(
  system: string,
  tools: Tool[] | undefined,
  messages: MessageParam[],
): { system: TextBlockParam[]; tools: Tool[] | undefined; messages: MessageParam[] } {
  const marked = messages.map((message) => ({ ...message }));
  const currentTurn = marked.findLastIndex((message) => message.role === 'user' && blocksOf(message).some((block) => block.type === 'text'));
  for (const index of new Set([currentTurn - 1, marked.length - 1])) {
    if (index >= 0) markLastBlock(marked[index]!);
  }
  return {
    system: system ? [{ type: 'text', text: system, cache_control: EPHEMERAL }] : [],
    tools: tools?.length ? [...tools.slice(0, -1), { ...tools.at(-1)!, cache_control: EPHEMERAL }] : tools,
    messages: marked,
  };
}

function blocksOf(message: MessageParam): Array<{ type: string }> {
  return typeof message.content === 'string' ? [{ type: 'text' }] : message.content;
}

function markLastBlock(message: MessageParam): void {
  const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : [...message.content];
  const last = content.at(-1);
  // thinking blocks cannot carry a breakpoint; such a message simply gets none
  if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') return;
  content[content.length - 1] = { ...last, cache_control: EPHEMERAL } as (typeof content)[number];
  message.content = content;
}
