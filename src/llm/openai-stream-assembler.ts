import type { CompletionUsage } from 'openai/resources/completions';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { MessagePart } from '../core/chat-message.js';
import type { ModelStreamEvent, StopReason, Usage } from './chat-model.js';
import { mapOpenAiFinishReason } from './map-stop-reason.js';
import type { FinishEvent, StreamAssembler } from './read-model-stream.js';

interface ToolCallDraft {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reasoning text as OpenAI-compatible servers stream it (DeepSeek and vLLM `reasoning_content`,
 * OpenRouter `reasoning`); the official API sends none on Chat Completions.
 */
function reasoningOf(delta: object): string | undefined {
  const record = delta as { reasoning_content?: unknown; reasoning?: unknown };
  const value = record.reasoning_content ?? record.reasoning;
  return typeof value === 'string' && value ? value : undefined;
}

export class OpenAiStreamAssembler implements StreamAssembler<ChatCompletionChunk> {
  private text = '';
  private reasoning = '';
  /** Keyed by the wire's tool-call index. */
  private readonly toolCalls = new Map<number, ToolCallDraft>();
  private finishReason: string | null = null;
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };

  get complete(): boolean {
    return this.finishReason !== null;
  }

  push(chunk: ChatCompletionChunk): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    // With include_usage the last chunk carries usage and no choices.
    if (chunk.usage) this.usage = convertOpenAiUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    const delta = choice.delta ?? {};
    const reasoning = reasoningOf(delta);
    if (reasoning) {
      this.reasoning += reasoning;
      events.push({ type: 'reasoning-delta', text: reasoning });
    }
    if (delta.content) {
      this.text += delta.content;
      events.push({ type: 'text-delta', text: delta.content });
    }
    for (const call of delta.tool_calls ?? []) events.push(...this.pushToolCall(call));
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  finish(): FinishEvent {
    const toolCalls = [...this.toolCalls.values()].map(({ id, name, arguments: text }) => ({ id, name, arguments: text || '{}' }));
    return {
      type: 'finish',
      message: { role: 'assistant', parts: assembleParts(this.reasoning, this.text, toolCalls) },
      stopReason: stopReasonOf(this.finishReason, toolCalls.length > 0),
      usage: this.usage,
    };
  }

  private pushToolCall(call: ChatCompletionChunk.Choice.Delta.ToolCall): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    let draft = this.toolCalls.get(call.index);
    if (!draft) {
      draft = { index: this.toolCalls.size, id: call.id || `call_${call.index}`, name: call.function?.name ?? '', arguments: '' };
      this.toolCalls.set(call.index, draft);
      events.push({ type: 'tool-call-start', index: draft.index, id: draft.id, name: draft.name });
    }
    const fragment = call.function?.arguments;
    if (fragment) {
      draft.arguments += fragment;
      events.push({ type: 'tool-call-delta', index: draft.index, argumentsDelta: fragment });
    }
    return events;
  }
}

/** A non-streamed completion as the same `finish` event. */
export function finishFromCompletion(completion: ChatCompletion): FinishEvent {
  const choice = completion.choices[0];
  const message = choice?.message;
  const toolCalls = (message?.tool_calls ?? [])
    .filter((call) => call.type === 'function')
    .map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments || '{}' }));
  return {
    type: 'finish',
    message: { role: 'assistant', parts: assembleParts(message ? (reasoningOf(message) ?? '') : '', message?.content ?? '', toolCalls) },
    stopReason: stopReasonOf(choice?.finish_reason, toolCalls.length > 0),
    usage: completion.usage ? convertOpenAiUsage(completion.usage) : { inputTokens: 0, outputTokens: 0 },
  };
}

/** `inputTokens` excludes cached prompt tokens, which OpenAI counts inside `prompt_tokens`. */
export function convertOpenAiUsage(usage: CompletionUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const converted: Usage = { inputTokens: Math.max(0, usage.prompt_tokens - cached), outputTokens: usage.completion_tokens };
  if (cached > 0) converted.cacheReadTokens = cached;
  return converted;
}

function assembleParts(reasoning: string, text: string, toolCalls: Array<{ id: string; name: string; arguments: string }>): MessagePart[] {
  const parts: MessagePart[] = [];
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning });
  if (text) parts.push({ type: 'text', text });
  for (const call of toolCalls) parts.push({ type: 'tool-call', ...call });
  return parts;
}

/** Some compatible servers say `stop` after tool calls; the calls are what matters. */
function stopReasonOf(finishReason: string | null | undefined, hasToolCalls: boolean): StopReason {
  const mapped = mapOpenAiFinishReason(finishReason);
  return hasToolCalls && mapped === 'stop' ? 'tool-use' : mapped;
}
