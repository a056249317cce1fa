import type {
  ContentBlock,
  Message,
  MessageDeltaUsage,
  RawMessageStreamEvent,
  Usage as AnthropicUsage,
} from '@anthropic-ai/sdk/resources/messages';
import type { MessagePart } from '../core/chat-message.js';
import type { ModelStreamEvent, Usage } from './chat-model.js';
import { mapAnthropicStopReason } from './map-stop-reason.js';
import type { FinishEvent, StreamAssembler } from './read-model-stream.js';

type BlockDraft =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string; signature: string | undefined }
  | { kind: 'redacted-thinking'; data: string }
  | { kind: 'tool-call'; index: number; id: string; name: string; arguments: string; startInput: unknown };

export class AnthropicStreamAssembler implements StreamAssembler<RawMessageStreamEvent> {
  /** Keyed by the wire's content-block index; the order is the order the API wants back. */
  private readonly blocks = new Map<number, BlockDraft>();
  private toolCallCount = 0;
  private stopReason: string | null = null;
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };

  get complete(): boolean {
    return this.stopReason !== null;
  }

  push(event: RawMessageStreamEvent): ModelStreamEvent[] {
    switch (event.type) {
      case 'message_start':
        this.usage = convertAnthropicUsage(event.message.usage);
        return [];
      case 'content_block_start':
        return this.startBlock(event.index, event.content_block);
      case 'content_block_delta':
        return this.applyDelta(event.index, event.delta);
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.usage = mergeDeltaUsage(this.usage, event.usage);
        return [];
      default:
        // content_block_stop, message_stop and event types newer than this code.
        return [];
    }
  }

  finish(): FinishEvent {
    const blocks = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    return {
      type: 'finish',
      message: { role: 'assistant', parts: blocks.flatMap(partOf) },
      stopReason: mapAnthropicStopReason(this.stopReason),
      usage: this.usage,
    };
  }

  private startBlock(index: number, block: ContentBlock): ModelStreamEvent[] {
    switch (block.type) {
      case 'text':
        this.blocks.set(index, { kind: 'text', text: block.text });
        return block.text ? [{ type: 'text-delta', text: block.text }] : [];
      case 'thinking':
        this.blocks.set(index, { kind: 'thinking', text: block.thinking, signature: block.signature || undefined });
        return block.thinking ? [{ type: 'reasoning-delta', text: block.thinking }] : [];
      case 'redacted_thinking':
        this.blocks.set(index, { kind: 'redacted-thinking', data: block.data });
        return [];
      case 'tool_use': {
        const draft = { kind: 'tool-call' as const, index: this.toolCallCount++, id: block.id, name: block.name, arguments: '', startInput: block.input };
        this.blocks.set(index, draft);
        return [{ type: 'tool-call-start', index: draft.index, id: draft.id, name: draft.name }];
      }
      default:
        // Server-tool blocks: we define no server tools, so none should arrive.
        return [];
    }
  }

  private applyDelta(index: number, delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta']): ModelStreamEvent[] {
    const block = this.blocks.get(index);
    if (delta.type === 'text_delta' && block?.kind === 'text') {
      block.text += delta.text;
      return [{ type: 'text-delta', text: delta.text }];
    }
    if (delta.type === 'thinking_delta' && block?.kind === 'thinking') {
      block.text += delta.thinking;
      return [{ type: 'reasoning-delta', text: delta.thinking }];
    }
    if (delta.type === 'signature_delta' && block?.kind === 'thinking') {
      block.signature = (block.signature ?? '') + delta.signature;
      return [];
    }
    if (delta.type === 'input_json_delta' && block?.kind === 'tool-call') {
      if (!delta.partial_json) return [];
      block.arguments += delta.partial_json;
      return [{ type: 'tool-call-delta', index: block.index, argumentsDelta: delta.partial_json }];
    }
    return [];
  }
}

/** A non-streamed message as the same `finish` event. */
export function finishFromMessage(message: Message): FinishEvent {
  let toolCallCount = 0;
  const parts = message.content.flatMap((block): MessagePart[] => {
    switch (block.type) {
      case 'text':
        return partOf({ kind: 'text', text: block.text });
      case 'thinking':
        return partOf({ kind: 'thinking', text: block.thinking, signature: block.signature });
      case 'redacted_thinking':
        return partOf({ kind: 'redacted-thinking', data: block.data });
      case 'tool_use':
        return partOf({ kind: 'tool-call', index: toolCallCount++, id: block.id, name: block.name, arguments: '', startInput: block.input });
      default:
        return [];
    }
  });
  return {
    type: 'finish',
    message: { role: 'assistant', parts },
    stopReason: mapAnthropicStopReason(message.stop_reason),
    usage: convertAnthropicUsage(message.usage),
  };
}

/** Anthropic's three input counts are disjoint, which is how `Usage` keeps them too. */
export function convertAnthropicUsage(usage: Pick<AnthropicUsage, 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens'>): Usage {
  const converted: Usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
  if (usage.cache_read_input_tokens) converted.cacheReadTokens = usage.cache_read_input_tokens;
  if (usage.cache_creation_input_tokens) converted.cacheWriteTokens = usage.cache_creation_input_tokens;
  return converted;
}

/** `message_delta` counts are cumulative; null means "unchanged since message_start". */
function mergeDeltaUsage(current: Usage, delta: MessageDeltaUsage): Usage {
  const merged: Usage = { ...current, outputTokens: delta.output_tokens ?? current.outputTokens };
  if (delta.input_tokens != null) merged.inputTokens = delta.input_tokens;
  if (delta.cache_read_input_tokens) merged.cacheReadTokens = delta.cache_read_input_tokens;
  if (delta.cache_creation_input_tokens) merged.cacheWriteTokens = delta.cache_creation_input_tokens;
  return merged;
}

function partOf(block: BlockDraft): MessagePart[] {
  switch (block.kind) {
    case 'text':
      return block.text ? [{ type: 'text', text: block.text }] : [];
    case 'thinking':
      return [{ type: 'reasoning', text: block.text, ...(block.signature ? { signature: block.signature } : {}) }];
    case 'redacted-thinking':
      return [{ type: 'reasoning', text: block.data, redacted: true }];
    case 'tool-call':
      return [{ type: 'tool-call', id: block.id, name: block.name, arguments: toolArguments(block) }];
  }
}

/** Streamed input arrives as JSON fragments; a non-streamed (or proxied) block carries it whole. */
function toolArguments(block: Extract<BlockDraft, { kind: 'tool-call' }>): string {
  if (block.arguments) return block.arguments;
  const input = block.startInput;
  const hasInput = input !== null && typeof input === 'object' && Object.keys(input).length > 0;
  return hasInput ? JSON.stringify(input) : '{}';
}
