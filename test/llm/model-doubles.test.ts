import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { userText } from '../../src/core/chat-message.js';
import { complete } from '../../src/llm/chat-model.js';
import { createChatModel } from '../../src/llm/index.js';
import { startAnthropicDouble, type AnthropicDouble } from '../doubles/anthropic-double.js';
import { reply } from '../doubles/model-script.js';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double.js';
import { collectUntilError, testConfig } from './model-test-support.js';

describe('the model doubles', () => {
  let doubles: Array<OpenAiDouble | AnthropicDouble> = [];
  afterEach(async () => {
    await Promise.all(doubles.map((double) => double.close()));
    doubles = [];
  });
  const start = async <T extends OpenAiDouble | AnthropicDouble>(double: Promise<T>) => {
    const started = await double;
    doubles.push(started);
    return started;
  };

  it.each(['openai', 'anthropic'] as const)('%s: counts requests in flight and the most at once', async (provider) => {
    const double = await start(provider === 'openai' ? startOpenAiDouble({ latencyMs: 150 }) : startAnthropicDouble({ latencyMs: 150 }));
    const model = createChatModel(testConfig(provider, double.baseUrl));
    const asking = Array.from({ length: 5 }, (_, index) => complete(model, { system: '', messages: [userText(`question ${index}`)] }));
    await double.waitFor(() => double.inFlight === 5);
    const answers = await Promise.all(asking);

    expect(answers.map((answer) => answer.message.parts)).toEqual(
      Array.from({ length: 5 }, (_, index) => [{ type: 'text', text: `You said: question ${index}` }]),
    );
    expect(double.maxInFlight).toBe(5);
    await double.waitFor(() => double.inFlight === 0);
    double.resetCounters();
    expect(double.maxInFlight).toBe(0);
  });

  it.each(['openai', 'anthropic'] as const)('%s: answers from a responder function when nothing is scripted', async (provider) => {
    const double = await start(provider === 'openai' ? startOpenAiDouble() : startAnthropicDouble());
    double.script.respondWith((request, lastUserText) => (request.body.tools ? reply.toolCall('shout', { text: lastUserText }) : lastUserText.toUpperCase()));
    double.script.push('scripted first');
    const model = createChatModel(testConfig(provider, double.baseUrl));
    const tools = [{ name: 'shout', description: 'Shout', parameters: { type: 'object', properties: {} } }];

    const first = await complete(model, { system: '', messages: [userText('hello')] });
    const second = await complete(model, { system: '', messages: [userText('hello')] });
    const third = await complete(model, { system: '', messages: [userText('hello')], tools });

    expect(first.message.parts).toEqual([{ type: 'text', text: 'scripted first' }]);
    expect(second.message.parts).toEqual([{ type: 'text', text: 'HELLO' }]);
    expect(third.message.parts).toMatchObject([{ type: 'tool-call', name: 'shout', arguments: '{"text":"hello"}' }]);
    expect(double.script.pending).toBe(0);
  });

  it.each(['openai', 'anthropic'] as const)('%s: checks the API key when given one', async (provider) => {
    const double = await start(provider === 'openai' ? startOpenAiDouble({ apiKey: 'right' }) : startAnthropicDouble({ apiKey: 'right' }));
    const wrong = createChatModel(testConfig(provider, double.baseUrl, { apiKey: 'wrong' }));
    const { error } = await collectUntilError(wrong.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'auth' });

    const right = createChatModel(testConfig(provider, double.baseUrl, { apiKey: 'right' }));
    await expect(complete(right, { system: '', messages: [userText('hi')] })).resolves.toBeDefined();
  });

  it('lists a model for `models.list()` of both SDKs', async () => {
    const openAiDouble = await start(startOpenAiDouble({ model: 'gpt-test' }));
    const anthropicDouble = await start(startAnthropicDouble({ model: 'claude-test' }));
    const openAiModels = await new OpenAI({ apiKey: 'k', baseURL: openAiDouble.baseUrl }).models.list();
    const anthropicModels = await new Anthropic({ apiKey: 'k', baseURL: anthropicDouble.baseUrl }).models.list();
    expect(openAiModels.data.map((model) => model.id)).toEqual(['gpt-test']);
    expect(anthropicModels.data.map((model) => model.id)).toEqual(['claude-test']);
    expect(openAiDouble.modelCalls).toEqual([]);
  });

  it.each(['openai', 'anthropic'] as const)('%s: a Retry-After over a minute fails at once with the wait, for the queue to honour', async (provider) => {
    const double = await start(provider === 'openai' ? startOpenAiDouble() : startAnthropicDouble());
    double.script.push(reply.rateLimited(120));
    const model = createChatModel(testConfig(provider, double.baseUrl, { maxRetries: 4 }));
    const startedAt = Date.now();
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));

    expect(error).toMatchObject({ code: 'rate-limit', isRetryable: true, retryAfterMs: 120_000 });
    expect(double.modelCalls).toHaveLength(1);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });
});
