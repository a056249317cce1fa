/** Platform- and provider-neutral conversation messages, as stored and as sent to a model. */
export type TextPart = { type: 'text'; text: string };
/** Model reasoning, kept verbatim in history (Anthropic thinking needs its signature) and never shown to users. */
export type ReasoningPart = { type: 'reasoning'; text: string; signature?: string; redacted?: boolean };
/** `arguments` is the raw JSON text the model produced (it may not parse). */
export type ToolCallPart = { type: 'tool-call'; id: string; name: string; arguments: string };
/**
 * An image sent to the model in the turn it arrived in (base64 bytes). Never stored: the stored user message
 * carries a short text placeholder instead, so later turns do not resend the bytes.
 */
export type ImagePart = { type: 'image'; mimeType: string; data: string };
export type ToolResultPart = { type: 'tool-result'; toolCallId: string; name: string; content: string; isError: boolean };

export type MessagePart = TextPart | ImagePart | ReasoningPart | ToolCallPart | ToolResultPart;
export type MessageRole = 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: MessageRole;
  parts: MessagePart[];
}

export function textOf(message: ChatMessage): string {
  return message.parts
    .filter((part): part is TextPart => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

export function toolCallsOf(message: ChatMessage): ToolCallPart[] {
  return message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
}

export const userText = (text: string): ChatMessage => ({ role: 'user', parts: [{ type: 'text', text }] });
export const assistantText = (text: string): ChatMessage => ({ role: 'assistant', parts: [{ type: 'text', text }] });
