import { describe, expect, it } from 'vitest';
import { userText } from '../../src/core/chat-message.js';
import { buildParams } from '../../src/llm/openai.js';
import { openAiRequestBody } from '../../src/llm/openai-request-body.js';
import { testConfig } from './model-test-support.js';

const tools = [
  { name: 'weather', description: 'Weather in a "city"', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'time', description: 'The time — anywhere', parameters: { type: 'object', properties: {} } },
];

describe('openAiRequestBody: the Chat Completions JSON, tools spliced in from their cache', () => {
  const config = testConfig('openai', 'http://127.0.0.1:1/v1');

  it('encodes the same request as JSON.stringify, with and without tools', () => {
    for (const request of [
      { system: 'Be brief.', messages: [userText('hello "there"\n\u2028')], tools },
      { system: '', messages: [userText('no tools')] },
      { system: '', messages: [userText('empty tools')], tools: [] },
      { system: 'x', messages: [userText('none')], tools, toolChoice: 'none' as const },
      { system: '数据 😀', messages: [userText('é, ü and 文本')], tools },
    ]) {
      const params = { ...buildParams(config, request), stream: true as const, stream_options: { include_usage: true } };
      expect(JSON.parse(openAiRequestBody(params).toString('utf8'))).toEqual(JSON.parse(JSON.stringify(params)));
    }
  });

  it('gives the cached tools JSON again on the next request, and a new spec its own', () => {
    const first = JSON.parse(openAiRequestBody(buildParams(config, { system: '', messages: [userText('a')], tools })).toString('utf8')) as { tools: unknown[] };
    const second = JSON.parse(openAiRequestBody(buildParams(config, { system: '', messages: [userText('b')], tools: [tools[1]!] })).toString('utf8')) as { tools: unknown[] };
    expect(first.tools).toHaveLength(2);
    expect(second.tools).toEqual([first.tools[1]]);
  });
});
