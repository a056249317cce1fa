import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userText, type ChatMessage } from '../../src/core/chat-message.js';
import { createAnthropicModel } from '../../src/llm/anthropic.js';
import { complete } from '../../src/llm/chat-model.js';
import { createChatModel } from '../../src/llm/index.js';
import { startAnthropicDouble, type AnthropicDouble } from '../doubles/anthropic-double.js';
import { reply } from '../doubles/model-script.js';
import { collect, collectUntilError, finishOf, testConfig, textOfEvents } from './model-test-support.js';

const lookupTool = {
  name: 'lookup',
  description: 'Look a word up',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
};

describe('Anthropic model against the double', () => {
  let double: AnthropicDouble;

  beforeAll(async () => {
    double = await startAnthropicDouble();
  });
  afterAll(() => double.close());
  beforeEach(() => double.reset());

  it('streams text in several deltas, with the system prompt as `system` and max_tokens 4096', async () => {
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const events = await collect(model.stream({ system: 'Be brief.', messages: [userText('hello there')] }));

    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(1);
    expect(textOfEvents(events)).toBe('You said: hello there');
    const finish = finishOf(events);
    expect(finish.message).toEqual({ role: 'assistant', parts: [{ type: 'text', text: 'You said: hello there' }] });
    expect(finish.stopReason).toBe('stop');

    const [request] = double.modelCalls;
    // prompt caching: the system prompt and the end of the request are cache breakpoints
    expect(request!.body).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there', cache_control: { type: 'ephemeral' } }] }],
      stream: true,
    });
    expect(request!.headers.authorization).toBe('Bearer test-key');
  });

  it('answers without streaming with only a finish event', async () => {
    double.script.push(reply.text('plain answer', { usage: { inputTokens: 20, outputTokens: 4, cacheReadTokens: 5, cacheWriteTokens: 6 } }));
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl, { stream: false }));
    const events = await collect(model.stream({ system: '', messages: [userText('hi')], maxTokens: 100 }));

    expect(events).toEqual([
      {
        type: 'finish',
        message: { role: 'assistant', parts: [{ type: 'text', text: 'plain answer' }] },
        stopReason: 'stop',
        usage: { inputTokens: 20, outputTokens: 4, cacheReadTokens: 5, cacheWriteTokens: 6 },
      },
    ]);
    expect(double.modelCalls[0]!.body).toMatchObject({ max_tokens: 100 });
    expect(double.modelCalls[0]!.body.system).toBeUndefined();
  });

  it('sends the configured output cap as max_tokens on every request (a smaller maxTokens wins, a larger one does not)', async () => {
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl, { maxOutputTokens: 640 }));
    await collect(model.stream({ system: '', messages: [userText('no cap asked for')] }));
    await collect(model.stream({ system: '', messages: [userText('a smaller one')], maxTokens: 64 }));
    await collect(model.stream({ system: '', messages: [userText('a larger one')], maxTokens: 9_000 }));
    expect(double.modelCalls.map((call) => call.body.max_tokens)).toEqual([640, 64, 640]);
  });

  it('reports streamed usage from message_start and message_delta', async () => {
    double.script.push(reply.text('ok', { usage: { inputTokens: 30, outputTokens: 9, cacheReadTokens: 10, cacheWriteTokens: 2 } }));
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const finish = finishOf(await collect(model.stream({ system: '', messages: [userText('hi')] })));
    expect(finish.usage).toEqual({ inputTokens: 30, outputTokens: 9, cacheReadTokens: 10, cacheWriteTokens: 2 });
  });

  it('streams tool calls as start and input_json deltas, assembled into tool-call parts', async () => {
    double.script.push(reply.toolCall('lookup', { word: 'serendipity' }, { id: 'toolu_1', text: 'Let me look.' }));
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const events = await collect(model.stream({ system: '', messages: [userText('define serendipity')], tools: [lookupTool] }));

    expect(events.filter((event) => event.type === 'tool-call-start')).toEqual([{ type: 'tool-call-start', index: 0, id: 'toolu_1', name: 'lookup' }]);
    expect(events.filter((event) => event.type === 'tool-call-delta').length).toBeGreaterThan(1);
    const finish = finishOf(events);
    expect(finish.stopReason).toBe('tool-use');
    expect(finish.message.parts).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool-call', id: 'toolu_1', name: 'lookup', arguments: '{"word":"serendipity"}' },
    ]);
    expect(double.modelCalls[0]!.body.tools).toEqual([
      { name: 'lookup', description: 'Look a word up', input_schema: lookupTool.parameters, cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('keeps thinking with its signature and sends it back verbatim with the tool result', async () => {
    double.script.push(
      {
        parts: [
          { type: 'thinking', text: 'The user wants a definition; I should look it up.', signature: 'sig-abc==' },
          { type: 'redacted-thinking', data: 'EncryptedBlob==' },
          { type: 'tool-call', name: 'lookup', arguments: { word: 'serendipity' }, id: 'toolu_9' },
        ],
      },
      'It means a happy accident.',
    );
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const history: ChatMessage[] = [userText('define serendipity')];
    const firstEvents = await collect(model.stream({ system: '', messages: history, tools: [lookupTool] }));

    expect(firstEvents.filter((event) => event.type === 'reasoning-delta').map((event) => (event as { text: string }).text).join('')).toBe(
      'The user wants a definition; I should look it up.',
    );
    const first = finishOf(firstEvents);
    expect(first.message.parts).toEqual([
      { type: 'reasoning', text: 'The user wants a definition; I should look it up.', signature: 'sig-abc==' },
      { type: 'reasoning', text: 'EncryptedBlob==', redacted: true },
      { type: 'tool-call', id: 'toolu_9', name: 'lookup', arguments: '{"word":"serendipity"}' },
    ]);

    history.push(first.message, {
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: 'toolu_9', name: 'lookup', content: 'a happy accident', isError: false }],
    });
    const second = await complete(model, { system: '', messages: history, tools: [lookupTool] });
    expect(second.message.parts).toEqual([{ type: 'text', text: 'It means a happy accident.' }]);
    expect(double.modelCalls[1]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'define serendipity' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants a definition; I should look it up.', signature: 'sig-abc==' },
          { type: 'redacted_thinking', data: 'EncryptedBlob==' },
          { type: 'tool_use', id: 'toolu_9', name: 'lookup', input: { word: 'serendipity' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'a happy accident', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it("with toolChoice 'none' sends no tools, unless the history holds tool blocks (then tool_choice none)", async () => {
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    await complete(model, { system: '', messages: [userText('sum up')], tools: [lookupTool], toolChoice: 'none' });
    expect(double.modelCalls[0]!.body.tools).toBeUndefined();

    const withToolHistory: ChatMessage[] = [
      userText('define it'),
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'toolu_1', name: 'lookup', arguments: '{}' }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'toolu_1', name: 'lookup', content: 'x', isError: false }] },
      userText('now sum up'),
    ];
    await complete(model, { system: '', messages: withToolHistory, tools: [lookupTool], toolChoice: 'none' });
    expect(double.modelCalls[1]!.body).toMatchObject({ tool_choice: { type: 'none' }, tools: [{ name: 'lookup' }] });
  });

  it('waits as long as Retry-After says on a 429, then succeeds', async () => {
    double.script.push(reply.rateLimited(1), 'after the wait');
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const response = await complete(model, { system: '', messages: [userText('hi')] });

    expect(response.message.parts).toEqual([{ type: 'text', text: 'after the wait' }]);
    const [limited, retried] = double.modelCalls;
    expect(limited!.status).toBe(429);
    expect(retried!.receivedAt - limited!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it('retries a 529 overloaded and a 500, then succeeds', async () => {
    double.script.push(reply.overloaded(), reply.serverError(500), 'recovered');
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const response = await complete(model, { system: '', messages: [userText('hi')] });
    expect(response.message.parts).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(double.modelCalls.map((request) => request.status)).toEqual([529, 500, 200]);
  });

  it('surfaces 529 as a retryable overloaded error once retries are spent', async () => {
    double.script.push(reply.overloaded());
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl, { maxRetries: 0 }));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'overloaded', isRetryable: true });
  });

  it('fails at once on a 400, without retrying', async () => {
    double.script.push(reply.badRequest('messages.0: bad block'));
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl, { maxRetries: 3 }));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'bad-request', isRetryable: false });
    expect(error.message).toContain('messages.0: bad block');
    expect(double.modelCalls).toHaveLength(1);
  });

  it('maps "prompt is too long" to context-length', async () => {
    double.script.push(reply.contextTooLong());
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('a very long prompt')] }));
    expect(error).toMatchObject({ code: 'context-length', isRetryable: false });
  });

  it('cancels the HTTP request when the signal aborts', async () => {
    double.script.push(reply.hang());
    const controller = new AbortController();
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const pending = collectUntilError(model.stream({ system: '', messages: [userText('hi')], signal: controller.signal }));
    await double.waitForRequests(1);
    controller.abort();

    const { error } = await pending;
    expect(error).toMatchObject({ code: 'aborted', isRetryable: false });
    await double.waitFor(() => double.requests[0]!.aborted);
    expect(double.inFlight).toBe(0);
  });

  it('surfaces a stream cut mid-answer as a retryable error', async () => {
    double.script.push(reply.cutMidStream());
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const { events, error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(textOfEvents(events)).toBe('This ans');
    expect(error).toMatchObject({ code: 'network', isRetryable: true });
  });

  it('surfaces an overloaded error event mid-stream as retryable', async () => {
    double.script.push(reply.streamError());
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error).toMatchObject({ code: 'overloaded', isRetryable: true });
  });

  it('surfaces a cut non-streamed body as a retryable error', async () => {
    double.script.push(reply.cutMidStream());
    const model = createAnthropicModel(testConfig('anthropic', double.baseUrl, { stream: false, maxRetries: 0 }));
    const { error } = await collectUntilError(model.stream({ system: '', messages: [userText('hi')] }));
    expect(error.isRetryable).toBe(true);
  });

  it('is what createChatModel gives for provider anthropic', () => {
    const model = createChatModel(testConfig('anthropic', double.baseUrl, { contextWindow: 200_000 }));
    expect(model).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-5-5', contextWindow: 200_000 });
  });
});
