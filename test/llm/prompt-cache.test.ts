import { describe, expect, it } from 'vitest';
import { assistantText, userText, type ChatMessage } from '../../src/core/chat-message.js';
import { buildParams as anthropicParams } from '../../src/llm/anthropic.js';
import { buildParams as openAiParams } from '../../src/llm/openai.js';
import { testConfig } from './model-test-support.js';

const tools = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'write_file', description: 'Write a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];
const call: ChatMessage = { role: 'assistant', parts: [{ type: 'tool-call', id: 't1', name: 'read_file', arguments: '{"path":"a"}' }] };
const result: ChatMessage = { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 't1', name: 'read_file', content: 'file body', isError: false }] };

const marked = (value: unknown) => JSON.stringify(value).includes('"cache_control":{"type":"ephemeral"}');

describe('Anthropic prompt cache breakpoints', () => {
  it('marks the tool definitions, the system prompt, the end of the earlier history and the end of the request', () => {
    const messages = [userText('first question'), assistantText('first answer'), userText('second question'), call, result];
    const params = anthropicParams(testConfig('anthropic', 'http://x'), { system: 'You are a bot.', messages, tools });
    expect(params.system).toEqual([{ type: 'text', text: 'You are a bot.', cache_control: { type: 'ephemeral' } }]);
    expect(marked(params.tools!.at(-1))).toBe(true);
    expect(marked(params.tools![0])).toBe(false);
    const flags = params.messages.map(marked);
    // history up to the first answer; the last message (tool results) caches this turn's calls so far
    expect(flags).toEqual([false, true, false, false, true]);
    expect(JSON.stringify(params).match(/cache_control/g)).toHaveLength(4);
  });

  it('a first turn has no history breakpoint, and no more than four in any case', () => {
    const params = anthropicParams(testConfig('anthropic', 'http://x'), { system: 's', messages: [userText('hello')], tools });
    expect(params.messages.map(marked)).toEqual([true]);
    expect(JSON.stringify(params).match(/cache_control/g)!.length).toBeLessThanOrEqual(4);
  });

  it('never marks a thinking block (the API refuses it)', () => {
    const thinking: ChatMessage = { role: 'assistant', parts: [{ type: 'reasoning', text: 'hmm', signature: 'sig' }] };
    const params = anthropicParams(testConfig('anthropic', 'http://x'), { system: 's', messages: [userText('q'), thinking, userText('q2')] });
    expect(params.messages.map(marked)).toEqual([false, false, true]);
  });
});

describe('OpenAI prompt caching', () => {
  it('sends the session cache key to OpenAI itself, not to other compatible servers', () => {
    const request = { system: 's', messages: [userText('q')], cacheKey: 'abc123' };
    expect(openAiParams(testConfig('openai', 'https://api.openai.com/v1'), request).prompt_cache_key).toBe('abc123');
    expect(openAiParams(testConfig('openai', 'http://127.0.0.1:9999/v1'), request).prompt_cache_key).toBeUndefined();
  });
});
