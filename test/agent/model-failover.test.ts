import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../src/agent/tools/agent-tool.js';
import type { TurnStep } from '../../src/agent/turn-steps.js';
import { BotError } from '../../src/core/errors.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { FailoverChatModel, type FailoverCooldowns } from '../../src/llm/index.js';
import { agentInput, collectEvents, terminalOf } from './support/agent-run.js';
import { ScriptedModel } from './support/scripted-model.js';

/** Nothing cools down: each call starts on the primary (the cool-down itself is tested in test/llm). */
const noCooldowns: FailoverCooldowns = { coolingOf: async () => new Set(), coolDown: async () => undefined };

const named = (model: string, provider: 'openai' | 'anthropic', steps: ConstructorParameters<typeof ScriptedModel>[0]) => new ScriptedModel(steps, { model, provider });

const broken = () => new BotError('network', 'openai stream ended before the model finished', { isRetryable: true });

describe('a failover inside the agent loop', () => {
  it('voids the broken attempt, runs no tool twice, and names and prices each span by the model that really answered', async () => {
    let runs = 0;
    const counter = defineTool({
      name: 'count',
      description: 'counts its runs',
      category: 'write',
      parameters: Type.Object({}),
      execute: async () => `ran ${++runs}`,
    });
    // the primary calls the tool, then breaks mid-answer on the next call
    const primary = named('gpt-4o', 'openai', [
      { toolCalls: [{ id: 'call_1', name: 'count' }], usage: { inputTokens: 1_000_000, outputTokens: 0 } },
      { error: broken() },
    ]);
    const fallback = named('claude-haiku-4-5', 'anthropic', [{ text: 'Counted once.', usage: { inputTokens: 1_000_000, outputTokens: 0 } }]);
    const model = new FailoverChatModel([primary, fallback], { cooldowns: noCooldowns, cooldownMs: 60_000 });
    const steps: TurnStep[] = [];
    const prices = (name: string, usage: { inputTokens: number }) => (usage.inputTokens / 1_000_000) * (name === 'gpt-4o' ? 2.5 : 1);
    const events = await collectEvents(agentInput(model, [counter], { prices, checkpoint: async (step) => void steps.push(step) }));
    const end = terminalOf(events);
    expect(end.type).toBe('run-end');
    expect(end.type === 'run-end' && end.text).toBe('Counted once.');
    expect(runs).toBe(1);
    // the fallback got the same request: the tool's result included
    expect(JSON.stringify(fallback.requests[0]!.messages)).toContain('ran 1');
    expect(events.filter((event) => event.type === 'model-failover')).toEqual([
      { type: 'model-failover', from: 'openai:gpt-4o', to: 'anthropic:claude-haiku-4-5', reason: 'network' },
    ]);
    const llmSpans = end.spans.filter((span) => span.kind === 'llm');
    expect(llmSpans.map((span) => [span.name, span.error === undefined, span.costUsd])).toEqual([
      ['openai:gpt-4o', true, 2.5],
      ['openai:gpt-4o', false, undefined],
      ['anthropic:claude-haiku-4-5', true, 1],
    ]);
    expect(end.costUsd).toBe(3.5);
    // the failed attempt is durable too (a takeover keeps it in the trace)
    expect(steps.filter((step) => step.type === 'model-error')).toHaveLength(1);
  });

  it('streams the broken attempt\u2019s text, then the failover event, then only the fallback\u2019s text', async () => {
    const breaking: ChatModel = {
      provider: 'openai',
      model: 'gpt-4o-mini',
      contextWindow: 100_000,
      maxOutputTokens: 1000,
      async *stream() {
        yield { type: 'text-delta', text: 'Half of an ans' };
        throw broken();
      },
    };
    const fallback = named('claude-haiku-4-5', 'anthropic', [{ text: 'Hello from the fallback' }]);
    const model = new FailoverChatModel([breaking, fallback], { cooldowns: noCooldowns, cooldownMs: 60_000 });
    const events = await collectEvents(agentInput(model, []));
    const shown = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : event.type === 'model-failover' ? ['|'] : []));
    expect(shown.join('')).toBe('Half of an ans|Hello from the fallback');
    const end = terminalOf(events);
    expect(end.type === 'run-end' && end.text).toBe('Hello from the fallback');
  });
});
