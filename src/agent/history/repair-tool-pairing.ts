import { toolCallsOf, type ChatMessage, type MessagePart, type ToolResultPart } from '../../core/chat-message.js';

export const MISSING_TOOL_RESULT = '[Tool result missing -- session was compacted]';

function resultsOf(message: ChatMessage): ToolResultPart[] {
  return message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result');
}

function uniqueId(id: string, used: Set<string>): string {
  if (!used.has(id)) return id;
  let suffix = 2;
  while (used.has(`${id}_${suffix}`)) suffix++;
  return `${id}_${suffix}`;
}

/**
 * Stage 3: make tool pairing valid for every provider (they answer 400/422 otherwise). Each
 * assistant tool call is followed by exactly one result, in call order: a missing result is
 * synthesized, a result without its call (orphan) is dropped, and a repeated call id is
 * rewritten on the later call and its result.
 */
export function repairToolPairing(messages: ChatMessage[]): ChatMessage[] {
  const repaired: ChatMessage[] = [];
  const usedIds = new Set<string>();
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as ChatMessage;
    index++;
    if (message.role === 'tool') continue;
    if (message.role !== 'assistant' || toolCallsOf(message).length === 0) {
      repaired.push(message);
      continue;
    }

    const available: Array<ToolResultPart | undefined> = [];
    while (index < messages.length && messages[index]?.role === 'tool') {
      available.push(...resultsOf(messages[index] as ChatMessage));
      index++;
    }
    const parts: MessagePart[] = [];
    const results: ChatMessage[] = [];
    for (const part of message.parts) {
      if (part.type !== 'tool-call') {
        parts.push(part);
        continue;
      }
      const id = uniqueId(part.id, usedIds);
      usedIds.add(id);
      parts.push(id === part.id ? part : { ...part, id });
      const match = available.findIndex((result) => result?.toolCallId === part.id);
      const found = match === -1 ? undefined : available[match];
      if (match !== -1) available[match] = undefined;
      const result: ToolResultPart = found
        ? { ...found, toolCallId: id }
        : { type: 'tool-result', toolCallId: id, name: part.name, content: MISSING_TOOL_RESULT, isError: true };
      results.push({ role: 'tool', parts: [result] });
    }
    repaired.push({ ...message, parts }, ...results);
  }
  return repaired;
}
