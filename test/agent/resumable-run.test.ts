import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_TOOL_RESULT } from '../../src/agent/agent-loop.js';
import type { ContextControl } from '../../src/agent/context/context-control.js';
import { REPEATED_CALL_RESULT } from '../../src/agent/loop-detection.js';
import { defineTool, type AgentTool, type ToolCategory } from '../../src/agent/tools/agent-tool.js';
import { replaySteps, type TurnStep } from '../../src/agent/turn-steps.js';
import { textOf, type ChatMessage } from '../../src/core/chat-message.js';
import { BotError } from '../../src/core/errors.js';
import { agentInput, collectEvents, terminalOf } from './support/agent-run.js';
import { ScriptedModel } from './support/scripted-model.js';

/** A tool with a side effect we can count: every execution appends to `log`. */
function countingTool(log: string[], category: ToolCategory = 'write', name = 'append'): AgentTool {
  return defineTool({
    name,
    description: 'Append a line to a file',
    category,
    parameters: Type.Object({ line: Type.String() }),
    execute: async (args) => {
      log.push(args.line);
      return `appended ${args.line}`;
    },
  });
}

const toolResults = (messages: ChatMessage[]) => messages.flatMap((message) => message.parts.filter((part) => part.type === 'tool-result'));

describe('a run resumed from its checkpoint', () => {
  it('checkpoints the tool-calling answer, the start of a side effect and its result, in that order; not the final answer', async () => {
    const steps: TurnStep[] = [];
    const log: string[] = [];
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'append', args: { line: 'one' } }] }, { text: 'done' }]);
    const end = terminalOf(await collectEvents(agentInput(model, [countingTool(log)], { checkpoint: async (step) => void steps.push(step) })));
    expect(end.type).toBe('run-end');
    expect(steps.map((step) => step.type)).toEqual(['model', 'tool-start', 'tool-result']);
    expect(steps[2]).toMatchObject({ toolCallId: 'c1', content: 'appended one', isError: false });
  });

  it('after a model error that followed a tool, the retry continues from the checkpoint: the tool ran once', async () => {
    const log: string[] = [];
    const steps: TurnStep[] = [];
    const checkpoint = async (step: TurnStep) => void steps.push(step);
    const first = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'append', args: { line: 'one' } }] },
      { error: new BotError('server', 'upstream 500', { isRetryable: true }) },
    ]);
    const failed = terminalOf(await collectEvents(agentInput(first, [countingTool(log)], { checkpoint })));
    expect(failed.type).toBe('run-error');
    expect(steps.map((step) => step.type)).toEqual(['model', 'tool-start', 'tool-result', 'model-error']);

    const retry = new ScriptedModel([(request) => ({ text: `answer after ${toolResults(request.messages).length} result(s)` })]);
    const end = terminalOf(await collectEvents(agentInput(retry, [countingTool(log)], { resume: [...steps], checkpoint })));
    expect(end).toMatchObject({ type: 'run-end', text: 'answer after 1 result(s)', iterations: 2 });
    expect(log).toEqual(['one']);
    // only the failed model request was repeated: one request in the second attempt, with the tool result in it
    expect(retry.requests).toHaveLength(1);
    expect(end.messages.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant']);
    // the trace keeps every call: the first, the failed one, the answer
    expect(end.spans.filter((span) => span.kind === 'llm').map((span) => span.kind === 'llm' && span.error)).toEqual([undefined, 'upstream 500', undefined]);
  });

  it('a side-effecting call that started but has no result is not run again; the model is told it was interrupted', async () => {
    const log: string[] = [];
    const read: string[] = [];
    const steps: TurnStep[] = [
      {
        type: 'model',
        message: {
          role: 'assistant',
          parts: [
            { type: 'tool-call', id: 'w', name: 'append', arguments: '{"line":"x"}' },
            { type: 'tool-call', id: 'r', name: 'peek', arguments: '{"line":"y"}' },
          ],
        },
        span: { kind: 'llm', name: 'openai:m', provider: 'openai', model: 'm', iteration: 1, startedAt: 0, durationMs: 1, usage: undefined, costUsd: undefined, error: undefined, input: undefined },
      },
      { type: 'tool-start', toolCallId: 'w' },
    ];
    const model = new ScriptedModel([(request) => ({ text: toolResults(request.messages).map((part) => part.type === 'tool-result' && part.content).join(' | ') })]);
    const end = terminalOf(await collectEvents(agentInput(model, [countingTool(log), countingTool(read, 'read', 'peek')], { resume: steps })));
    expect(log).toEqual([]);
    expect(read).toEqual(['y']);
    expect(end.type === 'run-end' && end.text).toBe(`${INTERRUPTED_TOOL_RESULT} | appended y`);
  });

  it('replays parallel results in call order whatever order they finished in, and ignores duplicates', () => {
    const span = { kind: 'tool', name: 't', toolCallId: 'x', startedAt: 0, durationMs: 1, isError: false, error: undefined, outputPreview: '' } as const;
    const progress = replaySteps([
      {
        type: 'model',
        message: { role: 'assistant', parts: [{ type: 'tool-call', id: 'a', name: 't', arguments: '{}' }, { type: 'tool-call', id: 'b', name: 't', arguments: '{}' }] },
        span: { kind: 'llm', name: 'openai:m', provider: 'openai', model: 'm', iteration: 1, startedAt: 0, durationMs: 1, usage: { inputTokens: 5, outputTokens: 1 }, costUsd: 0.5, error: undefined, input: undefined },
      },
      { type: 'tool-result', toolCallId: 'b', name: 't', content: 'B', isError: false, span },
      { type: 'tool-result', toolCallId: 'b', name: 't', content: 'B again', isError: false, span },
      { type: 'tool-result', toolCallId: 'a', name: 't', content: 'A', isError: false, span },
    ]);
    expect(toolResults(progress.messages).map((part) => part.type === 'tool-result' && part.content)).toEqual(['A', 'B']);
    expect(progress).toMatchObject({ iterations: 1, costUsd: 0.5, usage: { inputTokens: 5, outputTokens: 1 }, pendingCallIds: [] });
  });

  it('a checkpoint that fails ends the run before the side effect happens', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'append', args: { line: 'one' } }] }]);
    const checkpoint = async (step: TurnStep) => {
      if (step.type === 'tool-start') throw new BotError('aborted', 'the turn was taken over');
    };
    const end = terminalOf(await collectEvents(agentInput(model, [countingTool(log)], { checkpoint })));
    expect(end.type).toBe('run-cancel');
    expect(log).toEqual([]);
  });
});

describe('loop detection', () => {
  it('the same call with the same arguments three times in a row: the third is not run, the model answers without tools', async () => {
    const log: string[] = [];
    const same = { toolCalls: [{ name: 'append', args: { line: 'again' } }] };
    // key order and spacing do not make a call different
    const reordered = { toolCalls: [{ name: 'append', rawArguments: '{ "line" : "again" }' }] };
    const model = new ScriptedModel([same, reordered, same, { text: 'I kept getting the same result; here is what I have.' }]);
    const events = await collectEvents(agentInput(model, [countingTool(log)]));
    const end = terminalOf(events);
    expect(log).toEqual(['again', 'again']);
    expect(events.find((event) => event.type === 'loop-detected')).toEqual({ type: 'loop-detected', name: 'append', times: 3 });
    expect(end).toMatchObject({ type: 'run-end', text: 'I kept getting the same result; here is what I have.' });
    const last = model.requests.at(-1)!;
    expect(last.toolChoice).toBe('none');
    expect(textOf(last.messages.at(-1)!)).toMatch(/same arguments 3 times in a row/);
    expect(toolResults(end.messages).at(-1)).toMatchObject({ content: REPEATED_CALL_RESULT, isError: true });
    expect(model.requests).toHaveLength(4);
  });

  it('different arguments are not a loop', async () => {
    const log: string[] = [];
    const call = (line: string) => ({ toolCalls: [{ name: 'append', args: { line } }] });
    const model = new ScriptedModel([call('a'), call('b'), call('c'), call('d'), { text: 'done' }]);
    const end = terminalOf(await collectEvents(agentInput(model, [countingTool(log)])));
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    expect(end.type === 'run-end' && end.text).toBe('done');
  });

  it('counts repeats across a resume', async () => {
    const log: string[] = [];
    const steps: TurnStep[] = [];
    const same = { toolCalls: [{ name: 'append', args: { line: 'x' } }] };
    const first = new ScriptedModel([same, same, { error: new BotError('server', 'boom', { isRetryable: true }) }]);
    await collectEvents(agentInput(first, [countingTool(log)], { checkpoint: async (step) => void steps.push(step) }));
    const second = new ScriptedModel([same, { text: 'stopping' }]);
    const end = terminalOf(await collectEvents(agentInput(second, [countingTool(log)], { resume: steps })));
    expect(log).toEqual(['x', 'x']);
    expect(end.type === 'run-end' && end.text).toBe('stopping');
  });
});

describe('context control', () => {
  it('shapes every request, learns from usage, and shrinks and retries after a context-length refusal', async () => {
    const calls: number[] = [];
    const observed: number[] = [];
    const context: ContextControl = {
      prepare: async (request, { overflowed }) => {
        calls.push(overflowed);
        return { request: { ...request, messages: request.messages.slice(-1) }, rawTokens: 100 + overflowed };
      },
      observe: (prepared) => void observed.push(prepared.rawTokens ?? -1),
    };
    const model = new ScriptedModel([{ error: new BotError('context-length', 'too long') }, { text: 'fits now' }]);
    const end = terminalOf(await collectEvents(agentInput(model, [], { context })));
    expect(end).toMatchObject({ type: 'run-end', text: 'fits now' });
    expect(calls).toEqual([0, 1]);
    expect(observed).toEqual([101]);
    expect(model.requests[1]?.messages).toHaveLength(1);
  });

  it('gives up after two shrinking retries with the provider error', async () => {
    const context: ContextControl = { prepare: async (request) => ({ request }), observe: () => {} };
    const tooLong = { error: new BotError('context-length', 'too long') };
    const model = new ScriptedModel([tooLong, tooLong, tooLong]);
    const end = terminalOf(await collectEvents(agentInput(model, [], { context })));
    expect(end.type).toBe('run-error');
    expect(model.requests).toHaveLength(3);
  });
});
