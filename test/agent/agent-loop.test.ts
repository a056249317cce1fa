import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/agent-loop.js';
import { defineTool } from '../../src/agent/tools/agent-tool.js';
import { textOf, type ChatMessage } from '../../src/core/chat-message.js';
import { BotError } from '../../src/core/errors.js';
import { agentInput, collectEvents, eventTypes, terminalOf } from './support/agent-run.js';
import { ScriptedModel } from './support/scripted-model.js';
import { echoTool, failingTool } from './support/test-tools.js';

const toolResults = (messages: ChatMessage[]) =>
  messages.flatMap((message) => message.parts.filter((part) => part.type === 'tool-result'));

describe('agent loop (seed 001 §5.3)', () => {
  it('S5.1: a message with no tool calls returns text after one iteration', async () => {
    const model = new ScriptedModel([{ text: 'Hi there, how can I help?' }]);
    const events = await collectEvents(agentInput(model, []));
    const end = terminalOf(events);
    expect(end.type).toBe('run-end');
    if (end.type !== 'run-end') return;
    expect(end.text).toBe('Hi there, how can I help?');
    expect(end.reply).toEqual({ text: 'Hi there, how can I help?', silent: false });
    expect(end.iterations).toBe(1);
    expect(end.messages).toHaveLength(1);
    expect(eventTypes(events)[0]).toBe('run-start');
    expect(events.filter((event) => event.type === 'text-delta').map((event) => (event.type === 'text-delta' ? event.text : '')).join('')).toBe(
      'Hi there, how can I help?',
    );
    expect(model.requests[0]?.tools).toBeUndefined();
  });

  it('S5.2: a tool result is appended and the model answers from it', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'call_1', name: 'echo', args: { text: 'ping' } }] },
      (request) => ({ text: `The tool said: ${toolResults(request.messages).map((part) => part.content).join()}` }),
    ]);
    const events = await collectEvents(agentInput(model, [echoTool()]));
    const end = terminalOf(events);
    expect(end.type === 'run-end' && end.text).toBe('The tool said: echo: ping');
    expect(eventTypes(events)).toEqual(['run-start', 'tool-call-start', 'tool-call-end', ...Array(5).fill('text-delta'), 'run-end']);
    expect(end.messages.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(model.requests[1]?.messages.at(-1)?.parts[0]).toMatchObject({ type: 'tool-result', toolCallId: 'call_1', content: 'echo: ping', isError: false });
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('S5.3: several tool calls in one response are all executed and sent back', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'a', name: 'echo', args: { text: 'one' } }, { id: 'b', name: 'echo', args: { text: 'two' } }] },
      { text: 'done' },
    ]);
    const end = terminalOf(await collectEvents(agentInput(model, [echoTool()])));
    const sent = toolResults(model.requests[1]?.messages ?? []);
    expect(sent).toMatchObject([
      { toolCallId: 'a', content: 'echo: one' },
      { toolCallId: 'b', content: 'echo: two' },
    ]);
    expect(end.type).toBe('run-end');
  });

  it('S5.4: a tool that throws becomes an error result and the model acknowledges it', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: 'x', name: 'explode' }] }, { text: 'Sorry, the tool failed.' }]);
    const events = await collectEvents(agentInput(model, [failingTool('disk on fire')]));
    const toolEnd = events.find((event) => event.type === 'tool-call-end');
    expect(toolEnd).toMatchObject({ isError: true, output: 'Error: disk on fire' });
    expect(toolResults(model.requests[1]?.messages ?? [])[0]).toMatchObject({ isError: true, content: 'Error: disk on fire' });
    expect(terminalOf(events)).toMatchObject({ type: 'run-end', text: 'Sorry, the tool failed.' });
  });

  it('S5.5: aborting mid-stream ends the run cleanly with run-cancel and no final text', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ hangUntilAborted: true, text: 'Let me think' }]);
    const events = [];
    for await (const event of runAgent(agentInput(model, [], { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    const end = terminalOf(events);
    expect(end.type).toBe('run-cancel');
    expect(events.some((event) => event.type === 'run-end')).toBe(false);
    expect(end.messages).toEqual([]);
    expect(end.spans[0]).toMatchObject({ kind: 'llm', error: 'cancelled' });
  });

  it('S5.5: a model stream that ignores the signal does not keep a cancelled run hanging', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ hangForever: true, text: 'Hmm' }]);
    setTimeout(() => controller.abort(), 20);
    const events = await collectEvents(agentInput(model, [], { signal: controller.signal }));
    expect(terminalOf(events).type).toBe('run-cancel');
  });

  it('S5.6: a multi-turn tool loop continues until a text-only response', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'echo', args: { text: '1' } }] },
      { text: 'checking more', toolCalls: [{ name: 'echo', args: { text: '2' } }] },
      { toolCalls: [{ name: 'echo', args: { text: '3' } }] },
      { text: 'all three done' },
    ]);
    const end = terminalOf(await collectEvents(agentInput(model, [echoTool()])));
    expect(end).toMatchObject({ type: 'run-end', text: 'all three done', iterations: 4 });
    expect(end.messages.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });

  it('S5.7: exceeding maxIterations stops with a summary for the user, asked for without tools', async () => {
    const loop = (step: number) => ({ toolCalls: [{ name: 'echo', args: { text: `again ${step}` } }] });
    const model = new ScriptedModel([loop(1), loop(2), loop(3), { text: 'I echoed three times and ran out of steps.' }]);
    const input = agentInput(model, [echoTool()], { maxIterations: 3 });
    const end = terminalOf(await collectEvents(input));
    expect(end).toMatchObject({ type: 'run-end', text: 'I echoed three times and ran out of steps.', iterations: 3 });
    const summaryRequest = model.requests[3];
    expect(summaryRequest?.toolChoice).toBe('none');
    expect(summaryRequest?.tools).toBeUndefined();
    expect(textOf(summaryRequest?.messages.at(-1) ?? { role: 'user', parts: [] })).toMatch(/maximum number of steps/);
    // The summary request was built on a copy: the prompt is not part of the run's messages.
    expect(end.messages.filter((message) => message.role === 'user')).toEqual([]);
    expect(textOf(end.messages.at(-1)!)).toBe('I echoed three times and ran out of steps.');
    expect(input.messages).toHaveLength(1);
    expect(end.spans.filter((span) => span.kind === 'llm').map((span) => span.kind === 'llm' && span.iteration)).toEqual([1, 2, 3, 4]);
  });

  it('S5.7: when the summary call fails, the run ends with a fixed polite message', async () => {
    const loop = { toolCalls: [{ name: 'echo', args: { text: 'again' } }] };
    const model = new ScriptedModel([loop, loop, { error: new BotError('overloaded', 'busy') }]);
    const end = terminalOf(await collectEvents(agentInput(model, [echoTool()], { maxIterations: 2 })));
    expect(end.type).toBe('run-end');
    expect(end.type === 'run-end' && end.text).toMatch(/^I'm sorry, this task needed more steps/);
    expect(textOf(end.messages.at(-1)!)).toMatch(/more steps than I can take/);
  });

  it('S5.8: the signal reaches the model call and every tool; cancelling a tool cancels the run', async () => {
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const waitForAbort = defineTool({
      name: 'long_task',
      description: 'Runs until cancelled',
      category: 'read',
      parameters: Type.Object({}),
      execute: (_args, context) =>
        new Promise<string>((_resolve, reject) => {
          seen.push(context.signal);
          context.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ id: 't1', name: 'long_task' }] }, { text: 'never reached' }]);
    const events = [];
    for await (const event of runAgent(agentInput(model, [waitForAbort], { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'tool-call-start') setTimeout(() => controller.abort(), 5);
    }
    expect(model.requests[0]?.signal).toBe(controller.signal);
    expect(seen[0]).toBe(controller.signal);
    expect(seen[0]?.aborted).toBe(true);
    const end = terminalOf(events);
    expect(end.type).toBe('run-cancel');
    expect(model.requests).toHaveLength(1);
    // The stored history stays well-formed: the interrupted call has a result.
    expect(toolResults(end.messages)).toMatchObject([{ toolCallId: 't1', isError: true }]);
  });

  it('S5.8: an abort error thrown by the model after cancellation ends in run-cancel, not run-error', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([
      () => {
        controller.abort();
        return { error: Object.assign(new Error('Request was aborted.'), { name: 'APIUserAbortError' }) };
      },
    ]);
    const end = terminalOf(await collectEvents(agentInput(model, [], { signal: controller.signal })));
    expect(end.type).toBe('run-cancel');
  });

  it('an already aborted signal cancels before any model call', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = new ScriptedModel([{ text: 'no' }]);
    const events = await collectEvents(agentInput(model, [], { signal: controller.signal }));
    expect(eventTypes(events)).toEqual(['run-start', 'run-cancel']);
    expect(model.requests).toHaveLength(0);
  });
});
