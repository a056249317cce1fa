import { describe, expect, it } from 'vitest';
import { userText } from '../../src/core/chat-message.js';
import { convertAnthropicMessages, hasToolBlocks } from '../../src/llm/convert-anthropic-messages.js';

describe('convertAnthropicMessages', () => {
  it('sends thinking with its signature and redacted thinking verbatim, in order', () => {
    const converted = convertAnthropicMessages([
      userText('hi'),
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'first thought', signature: 'sig-1' },
          { type: 'reasoning', text: 'opaque-data', redacted: true },
          { type: 'text', text: 'Hello' },
        ],
      },
    ]);
    expect(converted).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'first thought', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque-data' },
          { type: 'text', text: 'Hello' },
        ],
      },
    ]);
  });

  it('leaves out unsigned reasoning and empty text', () => {
    const converted = convertAnthropicMessages([
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'from another provider' }, { type: 'text', text: '' }, { type: 'text', text: 'ok' }] },
    ]);
    expect(converted).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'ok' }] }]);
  });

  it('turns tool results into user tool_result blocks and merges consecutive tool and user messages', () => {
    const converted = convertAnthropicMessages([
      userText('do two things'),
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', id: 'toolu_1', name: 'a', arguments: '{"x":1}' },
          { type: 'tool-call', id: 'toolu_2', name: 'b', arguments: 'not json' },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'toolu_1', name: 'a', content: 'done', isError: false }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'toolu_2', name: 'b', content: 'bad input', isError: true }] },
      userText('and then?'),
    ]);
    expect(converted).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'do two things' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'a', input: { x: 1 } },
          { type: 'tool_use', id: 'toolu_2', name: 'b', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'bad input', is_error: true },
          { type: 'text', text: 'and then?' },
        ],
      },
    ]);
  });

  it('tells whether the history holds tool blocks', () => {
    expect(hasToolBlocks([userText('hi')])).toBe(false);
    expect(hasToolBlocks([{ role: 'assistant', parts: [{ type: 'tool-call', id: 'a', name: 'b', arguments: '{}' }] }])).toBe(true);
  });

  it('sends images as base64 image blocks beside the text', () => {
    expect(convertAnthropicMessages([{ role: 'user', parts: [{ type: 'text', text: 'look' }, { type: 'image', mimeType: 'image/jpeg', data: '/9j/4AAQ' }] }])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
        ],
      },
    ]);
  });
});
