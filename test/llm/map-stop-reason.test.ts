import { describe, expect, it } from 'vitest';
import { mapAnthropicStopReason, mapOpenAiFinishReason } from '../../src/llm/map-stop-reason.js';

describe('mapStopReason', () => {
  it('maps OpenAI finish reasons', () => {
    expect(mapOpenAiFinishReason('stop')).toBe('stop');
    expect(mapOpenAiFinishReason('tool_calls')).toBe('tool-use');
    expect(mapOpenAiFinishReason('function_call')).toBe('tool-use');
    expect(mapOpenAiFinishReason('length')).toBe('length');
    expect(mapOpenAiFinishReason('content_filter')).toBe('content-filter');
    expect(mapOpenAiFinishReason(null)).toBe('stop');
  });

  it('maps Anthropic stop reasons', () => {
    expect(mapAnthropicStopReason('end_turn')).toBe('stop');
    expect(mapAnthropicStopReason('stop_sequence')).toBe('stop');
    expect(mapAnthropicStopReason('tool_use')).toBe('tool-use');
    expect(mapAnthropicStopReason('max_tokens')).toBe('length');
    expect(mapAnthropicStopReason('model_context_window_exceeded')).toBe('length');
    expect(mapAnthropicStopReason('refusal')).toBe('content-filter');
    expect(mapAnthropicStopReason('pause_turn')).toBe('stop');
  });
});
