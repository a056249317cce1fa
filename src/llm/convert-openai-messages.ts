import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ImagePart, TextPart, ToolCallPart, ToolResultPart } from '../core/chat-message.js';

/**
 * Our history as Chat Completions messages. Reasoning parts stay behind: the Chat Completions
 * API has no field to send them back in (and compatible servers such as DeepSeek reject it).
 */
export function convertOpenAiMessages(system: string, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const converted: ChatCompletionMessageParam[] = [];
  if (system) converted.push({ role: 'system', content: system });
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        converted.push({ role: 'user', content: userContent(message) });
        break;
      case 'assistant': {
        const assistant = convertAssistant(message);
        if (assistant) converted.push(assistant);
        break;
      }
      case 'tool':
        for (const part of message.parts) {
          if (part.type === 'tool-result') converted.push(convertToolResult(part));
        }
        break;
    }
  }
  return converted;
}

function convertAssistant(message: ChatMessage): ChatCompletionAssistantMessageParam | undefined {
  const text = joinText(message);
  const toolCalls = message.parts
    .filter((part): part is ToolCallPart => part.type === 'tool-call')
    .map(convertToolCall);
  if (!text && toolCalls.length === 0) return undefined;
  return {
    role: 'assistant',
    // `null` rather than '' alongside tool calls: some compatible servers reject an empty string.
    content: text || null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

function convertToolCall(part: ToolCallPart): ChatCompletionMessageFunctionToolCall {
  return { id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } };
}

function convertToolResult(part: ToolResultPart): ChatCompletionMessageParam {
  return { role: 'tool', tool_call_id: part.toolCallId, content: part.content };
}

function joinText(message: ChatMessage): string {
  return message.parts
    .filter((part): part is TextPart => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

/** Plain text stays a string (byte-identical prompts for caching); with images, text and image_url parts in order. */
function userContent(message: ChatMessage): string | ChatCompletionContentPart[] {
  if (!message.parts.some((part) => part.type === 'image')) return joinText(message);
  return message.parts.flatMap((part): ChatCompletionContentPart[] => {
    if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : [];
    if (part.type === 'image') return [imageUrlPart(part)];
    return [];
  });
}

function imageUrlPart(part: ImagePart): ChatCompletionContentPart {
  return { type: 'image_url', image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}
