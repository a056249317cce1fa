import type { StopReason } from './chat-model.js';

/** OpenAI `finish_reason`; `function_call` is the legacy spelling of a tool call. */
export function mapOpenAiFinishReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool-use';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'stop';
  }
}

/** Anthropic `stop_reason`. `pause_turn` only comes from server tools, which we do not use. */
export function mapAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'tool_use':
      return 'tool-use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'stop';
  }
}
