import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userText, type ChatMessage } from '../../src/core/chat-message.js';
import { complete } from '../../src/llm/chat-model.js';
import { createChatModel } from '../../src/llm/index.js';
import { buildParams, createOpenAiModel } from '../../src/llm/openai.js';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double.js';
import { reply } from '../doubles/model-script.js';
import { collect, collectUntilError, finishOf, testConfig, textOfEvents } from './model-test-support.js';

const weatherTool = {
  name: 'weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('OpenAI model against the double', () => {
  let double: OpenAiDouble;

  beforeAll(async () => {
    double = await startOpenAiDouble();
  });
  afterAll(() => double.close());
  beforeEach(() => double.reset());

  it('streams text in several deltas and ends with the whole message and usage', async () => {
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const events = await collect(model.stream({ system: 'Be brief.', messages: [userText('hello there')] }));

    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(1);
    expect(textOfEvents(events)).toBe('You said: hello there');
    const finish = finishOf(events);
    expect(finish.message).toEqual({ role: 'assistant', parts: [{ type: 'text', text: 'You said: hello there' }] });
    expect(finish.stopReason).toBe('stop');
    expect(finish.usage.inputTokens).toBeGreaterThan(0);

    const [request] = double.modelCalls;
    expect(request!.body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello there' },
      ],
    });
    expect(request!.headers.authorization).toBe('Bearer test-key');
  });

  it('answers without streaming with only a finish event', async () => {
    double.script.push(reply.text('plain answer', { usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 4 } }));
    const model = createOpenAiModel(testConfig('openai', double.baseUrl, { stream: false }));
    const events = await collect(model.stream({ system: '', messages: [userText('hi')] }));

    expect(events).toEqual([
      {
        type: 'finish',
        message: { role: 'assistant', parts: [{ type: 'text', text: 'plain answer' }] },
        stopReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 4 },
      },
    ]);
    expect(double.modelCalls[0]!.body.stream).toBe(false);
  });

  it('streams tool calls as start and argument deltas, assembled into tool-call parts', async () => {
    double.script.push(
      reply.toolCalls([
        { name: 'weather', arguments: { city: 'Oslo' }, id: 'call_a' },
        { name: 'weather', arguments: { city: 'Bergen' }, id: 'call_b' },
      ]),
    );
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const events = await collect(model.stream({ system: '', messages: [userText('weather?')], tools: [weatherTool] }));

    expect(events.filter((event) => event.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'weather' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'weather' },
    ]);
    const deltas = events.filter((event) => event.type === 'tool-call-delta' && event.index === 0);
    expect(deltas.length).toBeGreaterThan(1);
    const finish = finishOf(events);
    expect(finish.stopReason).toBe('tool-use');
    expect(finish.message.parts).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'tool-call', id: 'call_b', name: 'weather', arguments: '{"city":"Bergen"}' },
    ]);
    expect(double.modelCalls[0]!.body.tools).toEqual([{ type: 'function', function: weatherTool }]);
  });

  it('sends the tool round trip back in Chat Completions form', async () => {
    double.script.push(reply.toolCall('weather', { city: 'Oslo' }, { id: 'call_1' }), 'It rains in Oslo.');
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const history: ChatMessage[] = [userText('weather in Oslo?')];
    const first = await complete(model, { system: '', messages: history, tools: [weatherTool] });
    history.push(first.message, {
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: 'call_1', name: 'weather', content: 'rain', isError: false }],
    });
    const second = await complete(model, { system: '', messages: history, tools: [weatherTool] });

    expect(second.message.parts).toEqual([{ type: 'text', text: 'It rains in Oslo.' }]);
    expect(double.modelCalls[1]!.body.messages).toEqual([
      { role: 'user', content: 'weather in Oslo?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'rain' },
    ]);
  });

  it("reports usage with cached tokens apart from the rest", async () => {
    double.script.push(reply.text('ok', { usage: { inputTokens: 100, outputTokens: 7, cacheReadTokens: 60 } }));
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const finish = finishOf(await collect(model.stream({ system: '', messages: [userText('hi')] })));
    expect(finish.usage).toEqual({ inputTokens: 100, outputTokens: 7, cacheReadTokens: 60 });
  });

  it('puts on the wire exactly the request buildParams builds, streamed or not', async () => {
    double.script.push('first', 'second');
    const request = { system: 'Be brief.', messages: [userText('weather?')], tools: [weatherTool] };
    await collect(createOpenAiModel(testConfig('openai', double.baseUrl)).stream(request));
    const plainConfig = testConfig('openai', double.baseUrl, { stream: false });
    await collect(createOpenAiModel(plainConfig).stream(request));
    const params = buildParams(plainConfig, request);
    expect(double.modelCalls.map((call) => call.body)).toEqual([
      { ...params, stream: true, stream_options: { include_usage: true } },
      { ...params, stream: false },
    ]);
    expect(double.modelCalls.map((call) => call.headers['content-type'])).toEqual(['application/json', 'application/json']);
  });

  it("sends no tools at all when toolChoice is 'none'", async () => {
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    await collect(model.stream({ system: '', messages: [userText('sum up')], tools: [weatherTool], toolChoice: 'none', maxTokens: 50 }));
    const body = double.modelCalls[0]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
    // A compatible server (not api.openai.com) gets the classic field.
    expect(body.max_tokens).toBe(50);
  });

  it('caps the output of every request at the configured maxOutputTokens (a smaller maxTokens wins, a larger one does not)', async () => {
    const model = createOpenAiModel(testConfig('openai', double.baseUrl, { maxOutputTokens: 777 }));
    await collect(model.stream({ system: '', messages: [userText('no cap asked for')] }));
    await collect(model.stream({ system: '', messages: [userText('a smaller one')], maxTokens: 100 }));
    await collect(model.stream({ system: '', messages: [userText('a larger one')], maxTokens: 5_000 }));
    // a compatible server gets both fields and reads the one it knows
    expect(double.modelCalls.map((call) => [call.body.max_completion_tokens, call.body.max_tokens])).toEqual([
      [777, 777],
      [100, 100],
      [777, 777],
    ]);
  });

  it('sends api.openai.com and Azure only max_completion_tokens (their reasoning models refuse max_tokens)', () => {
    const params = buildParams(testConfig('openai', 'https://api.openai.com/v1', { maxOutputTokens: 2048 }), { system: '', messages: [userText('hi')] });
    expect(params.max_completion_tokens).toBe(2048);
    expect(params).not.toHaveProperty('max_tokens');
    expect(buildParams(testConfig('openai', undefined as unknown as string), { system: '', messages: [userText('hi')] }).max_completion_tokens).toBe(4096);
    const azure = buildParams(testConfig('openai', 'https://example.openai.azure.com/openai/v1'), { system: '', messages: [userText('hi')] });
    expect(azure.max_completion_tokens).toBe(4096);
    expect(azure).not.toHaveProperty('max_tokens');
  });

  it('keeps reasoning_content from compatible servers as a reasoning part', async () => {
    double.script.push({ parts: [{ type: 'thinking', text: 'hmm', signature: '' }, { type: 'text', text: 'answer' }] });
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const events = await collect(model.stream({ system: '', messages: [userText('q')] }));
    expect(events.filter((event) => event.type === 'reasoning-delta').map((event) => (event as { text: string }).text).join('')).toBe('hmm');
    expect(finishOf(events).message.parts).toEqual([
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'answer' },
    ]);
  });

  it('waits as long as Retry-After says on a 429, then succeeds', async () => {
    double.script.push(reply.rateLimited(1), 'after the wait');
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const response = await complete(model, { system: '', messages: [userText('hi')] });

    expect(response.message.parts).toEqual([{ type: 'text', text: 'after the wait' }]);
    const [limited, retried] = double.modelCalls;
    expect(limited!.status).toBe(429);
    expect(retried!.receivedAt - limited!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it('surfaces a 429 as a retryable rate-limit with the wait once retries are spent', async () => {
    double.script.push(reply.rateLimited(2));
    const model = createOpenAiModel(testConfig('openai', double.baseUrl, { maxRetries: 0 }));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'rate-limit', isRetryable: true, retryAfterMs: 2000 });
  });

  it('retries a 500 and then succeeds', async () => {
    double.script.push(reply.serverError(500), 'recovered');
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const response = await complete(model, { system: '', messages: [userText('hi')] });
    expect(response.message.parts).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(double.modelCalls.map((request) => request.status)).toEqual([500, 200]);
  });

  it('fails at once on a 400, without retrying', async () => {
    double.script.push(reply.badRequest('messages: malformed'));
    const model = createOpenAiModel(testConfig('openai', double.baseUrl, { maxRetries: 3 }));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'bad-request', isRetryable: false });
    expect(error.message).toContain('messages: malformed');
    expect(double.modelCalls).toHaveLength(1);
  });

  it('maps context_length_exceeded to context-length', async () => {
    double.script.push(reply.contextTooLong());
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('a very long prompt')] }));
    expect(error).toMatchObject({ code: 'context-length', isRetryable: false });
  });

  it('maps 401 to auth', async () => {
    double.script.push(reply.unauthorized());
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'auth', isRetryable: false });
  });

  it('cancels the HTTP request when the signal aborts before the answer', async () => {
    double.settings.latencyMs = 5_000;
    const controller = new AbortController();
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const pending = collectUntilError(model.stream({ system: '', messages: [userText('hi')], signal: controller.signal }));
    await double.waitForRequests(1);
    controller.abort();

    const { error } = await pending;
    expect(error).toMatchObject({ code: 'aborted', isRetryable: false });
    await double.waitFor(() => double.requests[0]!.aborted);
    expect(double.inFlight).toBe(0);
  });

  it('cancels the HTTP request when the signal aborts mid-stream', async () => {
    double.script.push(reply.text('a long answer that streams slowly, chunk by chunk', { chunkDelayMs: 50 }));
    const controller = new AbortController();
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const events = [];
    let failure: unknown;
    try {
      for await (const event of model.stream({ system: '', messages: [userText('hi')], signal: controller.signal })) {
        events.push(event);
        if (event.type === 'text-delta') controller.abort();
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'aborted' });
    expect(events.some((event) => event.type === 'finish')).toBe(false);
    await double.waitFor(() => double.requests[0]!.aborted);
  });

  it('cancels the HTTP request when the consumer stops reading', async () => {
    double.script.push(reply.text('a long answer that nobody reads to the end', { chunkDelayMs: 50 }));
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    for await (const event of model.stream({ system: '', messages: [userText('hi')] })) {
      if (event.type === 'text-delta') break;
    }
    await double.waitFor(() => double.requests[0]!.aborted);
  });

  it('surfaces a stream cut mid-answer as a retryable error', async () => {
    double.script.push(reply.cutMidStream());
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const { events, error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(textOfEvents(events)).toBe('This ans');
    expect(error).toMatchObject({ code: 'network', isRetryable: true });
  });

  it('surfaces an error event inside the stream as a retryable server error', async () => {
    double.script.push(reply.streamError());
    const model = createOpenAiModel(testConfig('openai', double.baseUrl));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'server', isRetryable: true });
  });

  it('gives up on a stream that goes silent, as a retryable timeout', async () => {
    double.script.push(reply.text('slow and then silent', { chunkSize: 5, chunkDelayMs: 2_000 }));
    const model = createOpenAiModel(testConfig('openai', double.baseUrl, { timeoutMs: 300 }));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'timeout', isRetryable: true });
    await double.waitFor(() => double.requests[0]!.aborted);
  });

  it('is what createChatModel gives for provider openai', () => {
    const model = createChatModel(testConfig('openai', double.baseUrl));
    expect(model).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', contextWindow: 128_000 });
  });
});
