import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage, MessagePart, ReasoningPart } from '../core/chat-message.js';

/**
 * Our history as Anthropic messages: tool results become user-role `tool_result` blocks, and
 * consecutive messages of one role merge into one (tool results first, as the API requires).
 * Signed thinking and redacted thinking go back verbatim and in order; the API rejects a turn
 * whose thinking was altered.
 */
export function convertAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const converted: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = message.parts.flatMap((part) => convertPart(part));
    if (content.length === 0) continue;
    const previous = converted.at(-1);
    if (previous && previous.role === role) previous.content.push(...content);
    else converted.push({ role, content });
  }
  return converted;
}

/** True when the history holds tool blocks; the API then requires tool definitions in the request. */
export function hasToolBlocks(messages: ChatMessage[]): boolean {
  return messages.some((message) => message.parts.some((part) => part.type === 'tool-call' || part.type === 'tool-result'));
}

function convertPart(part: MessagePart): ContentBlockParam[] {
  switch (part.type) {
    case 'text':
      // The API rejects empty text blocks.
      return part.text ? [{ type: 'text', text: part.text }] : [];
    case 'image':
      return [{ type: 'image', source: { type: 'base64', media_type: part.mimeType as 'image/png', data: part.data } }];
    case 'reasoning':
      return convertReasoning(part);
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.arguments) }];
    case 'tool-result': {
      const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: part.toolCallId, content: part.content };
      if (part.isError) block.is_error = true;
      return [block];
    }
  }
}

function convertReasoning(part: ReasoningPart): ContentBlockParam[] {
  if (part.redacted) return [{ type: 'redacted_thinking', data: part.text }];
  // Unsigned reasoning (e.g. from another provider) cannot be verified by the API: leave it out.
  if (part.signature === undefined) return [];
  return [{ type: 'thinking', thinking: part.text, signature: part.signature }];
}

/** The API wants an object; arguments the model garbled are sent as an empty object. */
function parseToolInput(argumentsText: string): Record<string, unknown> {
  if (!argumentsText.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
