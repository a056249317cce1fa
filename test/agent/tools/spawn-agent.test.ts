import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, type AgentTool, type ToolCategory } from '../../../src/agent/tools/agent-tool.js';
import { createSpawnAgentTool, type SpawnAgentOptions, type SubagentSetup } from '../../../src/agent/tools/spawn-agent.js';
import { replaySteps, type TurnStep } from '../../../src/agent/turn-steps.js';
import { textOf } from '../../../src/core/chat-message.js';
import { BotError } from '../../../src/core/errors.js';
import type { ChatRequest } from '../../../src/llm/chat-model.js';
import { agentInput, collectEvents, terminalOf } from '../support/agent-run.js';
import { ScriptedModel, type ScriptStep } from '../support/scripted-model.js';

function tool(name: string, category: ToolCategory, extra: Partial<AgentTool> = {}): AgentTool {
  return { ...defineTool({ name, description: name, category, parameters: Type.Object({}), execute: async () => `${name} ran` }), ...extra };
}

/** What the service gives an agent: file tools, bash, send_file, memory and schedule tools, an MCP tool each way. */
const agentTools = (): AgentTool[] => [
  tool('read_file', 'read'),
  tool('list_directory', 'read'),
  tool('write_file', 'write', { privileged: true }),
  tool('bash', 'write', { privileged: true }),
  tool('send_file', 'write', { privileged: true }),
  tool('remember', 'write'),
  tool('recall', 'read'),
  tool('forget', 'write'),
  tool('schedule_task', 'write'),
  tool('list_tasks', 'read'),
  tool('cancel_task', 'write'),
  tool('docs__search', 'read'),
  tool('docs__delete', 'write', { privileged: true }),
  tool('wiki__lookup', 'read', { requiresApproval: true }),
  tool('report', 'read', { privileged: true }), // a CLI tool declared `read` still runs a command
];

const isChildRequest = (request: ChatRequest) => request.system.includes('You are a sub-agent');

function spawnOptions(child: ScriptedModel, overrides: Partial<SpawnAgentOptions> = {}, setup: Partial<SubagentSetup> = {}): SpawnAgentOptions {
  return {
    depth: 0,
    maxDepth: 1,
    maxParallel: 4,
    agentNames: ['main', 'researcher'],
    agentFor: async (name) =>
      name === 'nobody' ? undefined : { id: name ?? 'main', model: child, tools: agentTools(), identity: undefined, maxIterations: 20, requireApproval: [], ...setup },
    runId: 'run-1',
    clock: Date.now,
    prices: (_model, usage) => usage.inputTokens / 1000,
    ...overrides,
  };
}

const spawnCall = (id: string, prompt: string, agent?: string) => ({ id, name: 'spawn_agent', args: { prompt, ...(agent ? { agent } : {}) } });

describe('spawn_agent (CONTRACT §18)', () => {
  it('runs a child on the prompt alone with read-only tools and the minimal prompt; its answer reaches the parent, its spans and cost roll up', async () => {
    const child = new ScriptedModel([{ toolCalls: [{ id: 'child_call', name: 'read_file' }], usage: { inputTokens: 300, outputTokens: 5 } }, { text: 'The file says 42.', usage: { inputTokens: 400, outputTokens: 5 } }]);
    const parent = new ScriptedModel([
      { toolCalls: [spawnCall('spawn_1', 'Read notes.txt and tell me the number in it.')], usage: { inputTokens: 100, outputTokens: 5 } },
      { text: 'The number is 42.', usage: { inputTokens: 200, outputTokens: 5 } },
    ]);
    const steps: TurnStep[] = [];
    const input = agentInput(parent, [...agentTools(), createSpawnAgentTool(spawnOptions(child))], {
      prices: (_model, usage) => usage.inputTokens / 1000,
      checkpoint: async (step) => void steps.push(step),
    });
    const end = terminalOf(await collectEvents(input));
    expect(end.type).toBe('run-end');
    const result = end.messages.find((message) => message.role === 'tool')!;
    expect(JSON.stringify(result)).toContain('The file says 42.');

    const [first] = child.requests;
    expect(first!.messages).toHaveLength(1);
    expect(textOf(first!.messages[0]!)).toBe('Read notes.txt and tell me the number in it.');
    expect(JSON.stringify(first!.messages)).not.toContain('hello'); // the parent's user message
    expect(first!.tools!.map((spec) => spec.name).sort()).toEqual(['docs__search', 'list_directory', 'list_tasks', 'read_file', 'recall']);
    expect(first!.system).not.toMatch(/## Memory|## Messaging|## Chat|NO_REPLY/);

    // the child's model and tool calls are spans of the parent's run, nested under the spawn_agent call
    const nested = end.spans.filter((span) => span.parentToolCallId === 'spawn_1');
    expect(nested.map((span) => `${span.kind}:${span.name}`)).toEqual(['llm:openai:scripted-model', 'tool:read_file', 'llm:openai:scripted-model']);
    const spawnSpan = end.spans.find((span) => span.kind === 'tool' && span.name === 'spawn_agent');
    expect(spawnSpan).toMatchObject({ toolCallId: 'spawn_1', isError: false });
    expect(end.spans.indexOf(spawnSpan!)).toBeGreaterThan(end.spans.indexOf(nested.at(-1)!));
    expect(end.usage.inputTokens).toBe(100 + 300 + 400 + 200);
    expect(end.costUsd).toBeCloseTo(1.0);
    // each of the child's spans is saved as it happens, before the call's result: a takeover neither runs a finished
    // child again nor loses its cost, and the saved steps add up to what the run counted
    const saved = steps.flatMap((step) => (step.type === 'subagent-span' && step.toolCallId === 'spawn_1' ? [step.span] : []));
    expect(saved.map((span) => `${span.kind}:${span.name}:${span.parentToolCallId}`)).toEqual(['llm:openai:scripted-model:spawn_1', 'tool:read_file:spawn_1', 'llm:openai:scripted-model:spawn_1']);
    const resultStep = steps.findIndex((step) => step.type === 'tool-result' && step.toolCallId === 'spawn_1');
    expect(steps.findLastIndex((step) => step.type === 'subagent-span')).toBeLessThan(resultStep);
    expect(steps[resultStep]).not.toHaveProperty('spans');
    const replayed = replaySteps(steps);
    expect(replayed.usage.inputTokens).toBe(100 + 300 + 400);
    expect(replayed.costUsd).toBeCloseTo(0.8);
  });

  it('a child cut short by a crash runs again on takeover: the first attempt\u2019s calls stay in the run, counted once, also after a second takeover', async () => {
    const spawn = { toolCalls: [spawnCall('spawn_1', 'Read notes.txt.')], usage: { inputTokens: 100, outputTokens: 5 } };
    const childLooks = { toolCalls: [{ id: 'look', name: 'read_file' }], usage: { inputTokens: 300, outputTokens: 5 } };
    const steps: TurnStep[] = [];
    /** One attempt of the turn, continuing from the saved steps, whose checkpoints start failing (the worker dies) after `saves`. */
    const attempt = async (parentScript: ScriptStep[], childScript: ScriptStep[], saves = Infinity) => {
      const resume = [...steps];
      let left = saves;
      const input = agentInput(new ScriptedModel(parentScript), [...agentTools(), createSpawnAgentTool(spawnOptions(new ScriptedModel(childScript)))], {
        prices: (_model, usage) => usage.inputTokens / 1000,
        resume,
        checkpoint: async (step) => {
          if (left-- <= 0) throw new Error('the lease was lost');
          steps.push(step);
        },
      });
      return terminalOf(await collectEvents(input));
    };
    // the first attempt: the parent's call, the child's first call (and its read), then the crash
    await attempt([spawn], [childLooks, { text: 'never seen' }], 3);
    expect(steps.map((step) => step.type)).toEqual(['model', 'subagent-span', 'subagent-span']);
    // the second attempt runs the child again: its first call is saved, then the worker dies again
    await attempt([], [{ ...childLooks, usage: { inputTokens: 301, outputTokens: 5 } }, { text: 'never seen' }], 1);
    // the third finishes: the child runs a third time and the parent answers
    const end = await attempt([{ text: 'The notes say 42.', usage: { inputTokens: 200, outputTokens: 5 } }], [{ ...childLooks, usage: { inputTokens: 302, outputTokens: 5 } }, { text: 'The file says 42.', usage: { inputTokens: 400, outputTokens: 5 } }]);
    expect(end.type).toBe('run-end');
    // every child call made in any attempt is in the run once: 300 and 301 cut short, 302 and 400 of the finished one
    const childCalls = end.spans.filter((span) => span.kind === 'llm' && span.parentToolCallId === 'spawn_1');
    expect(childCalls.map((span) => span.kind === 'llm' && span.usage?.inputTokens)).toEqual([300, 301, 302, 400]);
    expect(end.usage.inputTokens).toBe(100 + 300 + 301 + 302 + 400 + 200);
    expect(end.costUsd).toBeCloseTo((100 + 300 + 301 + 302 + 400 + 200) / 1000);
    expect(replaySteps(steps).costUsd).toBeCloseTo((100 + 300 + 301 + 302 + 400) / 1000);
  });

  it('a child cannot spawn at the default depth; with SUBAGENT_MAX_DEPTH 2 it can, and its child cannot', async () => {
    const seen: string[][] = [];
    const steps: ScriptStep[] = [
      (request) => {
        seen.push(request.tools?.map((spec) => spec.name) ?? []);
        return { toolCalls: [spawnCall('deeper', 'go deeper')] };
      },
      (request) => {
        seen.push(request.tools?.map((spec) => spec.name) ?? []);
        return { text: 'grandchild done' };
      },
      { text: 'child done' },
    ];
    const child = new ScriptedModel(steps);
    const parent = new ScriptedModel([{ toolCalls: [spawnCall('top', 'task')] }, { text: 'all done' }]);
    const end = terminalOf(await collectEvents(agentInput(parent, [createSpawnAgentTool(spawnOptions(child, { maxDepth: 2 }))])));
    expect(end.type).toBe('run-end');
    expect(seen[0]).toContain('spawn_agent');
    expect(seen[1]).not.toContain('spawn_agent');
    const grandchildSpans = end.spans.filter((span) => span.parentToolCallId === 'deeper');
    expect(grandchildSpans).toHaveLength(1);

    const leaf = new ScriptedModel([(request) => ({ text: request.tools?.some((spec) => spec.name === 'spawn_agent') ? 'can spawn' : 'cannot spawn' })]);
    const parent2 = new ScriptedModel([{ toolCalls: [spawnCall('one', 'task')] }, { text: 'ok' }]);
    await collectEvents(agentInput(parent2, [createSpawnAgentTool(spawnOptions(leaf))]));
    expect(JSON.stringify(parent2.requests[1]!.messages.at(-1))).toContain('cannot spawn');
  });

  it('runs the children of one response in parallel, at most SUBAGENT_MAX_PARALLEL at once', async () => {
    let running = 0;
    let most = 0;
    const slowChild = {
      provider: 'openai' as const,
      model: 'slow-child',
      contextWindow: 100_000,
      maxOutputTokens: 1000,
      async *stream(request: ChatRequest) {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 100));
        running--;
        const text = `done: ${textOf(request.messages[0]!)}`;
        yield { type: 'finish' as const, message: { role: 'assistant' as const, parts: [{ type: 'text' as const, text }] }, stopReason: 'stop' as const, usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const calls = ['a', 'b', 'c', 'd', 'e'].map((id) => spawnCall(id, `task ${id}`));
    const parent = new ScriptedModel([{ toolCalls: calls }, { text: 'five answers' }]);
    const options = spawnOptions(new ScriptedModel([]), { maxParallel: 2 });
    const tool = createSpawnAgentTool({ ...options, agentFor: async () => ({ id: 'main', model: slowChild, tools: [], identity: undefined, maxIterations: 5, requireApproval: [] }) });
    const started = Date.now();
    const end = terminalOf(await collectEvents(agentInput(parent, [tool])));
    expect(most).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const results = parent.requests[1]!.messages.filter((message) => message.role === 'tool').map((message) => JSON.stringify(message));
    expect(results.map((text) => /task (\w)/.exec(text)![1])).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(end.type).toBe('run-end');
  });

  it('a child that fails, or reaches a budget, is a tool error the parent can explain, with the spans it made', async () => {
    const budget = new BotError('budget-exceeded', "the chat's daily budget of $1 is used up until 2026-01-02T00:00:00.000Z");
    const child = new ScriptedModel([{ toolCalls: [{ name: 'read_file' }], usage: { inputTokens: 50, outputTokens: 1 } }, { error: budget }]);
    const parent = new ScriptedModel([{ toolCalls: [spawnCall('s1', 'task')] }, { text: 'The limit was reached.' }]);
    const end = terminalOf(await collectEvents(agentInput(parent, [createSpawnAgentTool(spawnOptions(child))])));
    expect(end.type).toBe('run-end');
    const result = end.messages.find((message) => message.role === 'tool')!.parts[0]!;
    expect(result).toMatchObject({ type: 'tool-result', isError: true });
    expect(JSON.stringify(result)).toMatch(/sub-agent was stopped: the chat's daily budget of \$1 is used up.*tell the user the usage limit was reached/);
    expect(end.spans.filter((span) => span.parentToolCallId === 's1').map((span) => span.kind)).toEqual(['llm', 'tool', 'llm']);

    const unknown = new ScriptedModel([{ toolCalls: [spawnCall('s2', 'task', 'nobody')] }, { text: 'ok' }]);
    const end2 = terminalOf(await collectEvents(agentInput(unknown, [createSpawnAgentTool(spawnOptions(child))])));
    expect(JSON.stringify(end2.messages)).toContain('there is no agent named \\"nobody\\"; agents: main, researcher');
  });

  it('the parent\u2019s abort stops the child\u2019s model request', async () => {
    const controller = new AbortController();
    let childSignal: AbortSignal | undefined;
    const child = new ScriptedModel([
      (request) => {
        childSignal = request.signal;
        setTimeout(() => controller.abort(), 20);
        return { hangUntilAborted: true };
      },
    ]);
    const parent = new ScriptedModel([{ toolCalls: [spawnCall('s1', 'slow task')] }]);
    const end = terminalOf(await collectEvents(agentInput(parent, [createSpawnAgentTool(spawnOptions(child))], { signal: controller.signal })));
    expect(end.type).toBe('run-cancel');
    expect(childSignal?.aborted).toBe(true);
    expect(isChild(child)).toBe(true);
  });
  it('a spawn_agent made anew each turn is sent as the same spec object, so its wire form and token estimate are made once', async () => {
    const child = new ScriptedModel([]);
    const specsSent: unknown[] = [];
    for (const runId of ['run-1', 'run-2']) {
      const parent = new ScriptedModel([{ text: 'Nothing to hand over.' }]);
      const spawn = createSpawnAgentTool(spawnOptions(child, { runId }));
      await collectEvents(agentInput(parent, [tool('read_file', 'read'), spawn]));
      specsSent.push(parent.requests[0]!.tools!.find((spec) => spec.name === 'spawn_agent'));
    }
    expect(specsSent[0]).toBeDefined();
    expect(specsSent[1]).toBe(specsSent[0]);
    // another list of agents is another description, and so another spec
    const parent = new ScriptedModel([{ text: 'Nothing to hand over.' }]);
    await collectEvents(agentInput(parent, [createSpawnAgentTool(spawnOptions(child, { agentNames: ['main', 'writer'] }))]));
    const other = parent.requests[0]!.tools!.find((spec) => spec.name === 'spawn_agent');
    expect(other).not.toBe(specsSent[0]);
    expect(other!.description).toContain('Agents you may name: main, writer.');
  });
});

function isChild(model: ScriptedModel): boolean {
  return model.requests.every(isChildRequest);
}
