import { describe, expect, it } from 'vitest';
import { userText } from '../../src/core/chat-message.js';
import { convertOpenAiMessages } from '../../src/llm/convert-openai-messages.js';

describe('convertOpenAiMessages', () => {
  it('puts the system prompt first and leaves it out when empty', () => {
    expect(convertOpenAiMessages('Be brief.', [userText('hi')])).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(convertOpenAiMessages('', [userText('hi')])).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('sends assistant tool calls with null content and one tool message per result', () => {
    const converted = convertOpenAiMessages('', [
      userText('weather?'),
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'thinking about it' },
          { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'call_2', name: 'time', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', toolCallId: 'call_1', name: 'weather', content: 'rain', isError: false },
          { type: 'tool-result', toolCallId: 'call_2', name: 'time', content: 'boom', isError: true },
        ],
      },
    ]);
    expect(converted).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'rain' },
      { role: 'tool', tool_call_id: 'call_2', content: 'boom' },
    ]);
  });

  it('keeps assistant text next to tool calls, joins text parts, and drops empty assistant turns', () => {
    const converted = convertOpenAiMessages('', [
      { role: 'assistant', parts: [{ type: 'text', text: 'Let me ' }, { type: 'text', text: 'check.' }, { type: 'tool-call', id: 'c', name: 'x', arguments: '{}' }] },
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'only thoughts', signature: 's' }] },
    ]);
    expect(converted).toEqual([
      { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{}' } }] },
    ]);
  });

  it('sends a user message with images as text and image_url parts (data URLs), plain text stays a string', () => {
    const converted = convertOpenAiMessages('', [
      { role: 'user', parts: [{ type: 'text', text: 'what is this?' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0K' }] },
    ]);
    expect(converted).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
        ],
      },
    ]);
  });
});
