import { runAgent, type AgentInput } from '../../../src/agent/agent-loop.js';
import type { AgentEvent } from '../../../src/agent/agent-events.js';
import type { AgentTool, ToolContext } from '../../../src/agent/tools/agent-tool.js';
import { userText } from '../../../src/core/chat-message.js';
import type { ChatModel } from '../../../src/llm/chat-model.js';

export type TerminalEvent = Extract<AgentEvent, { type: 'run-end' | 'run-error' | 'run-cancel' | 'run-park' }>;

export function testToolContext(signal: AbortSignal, workspace = '/tmp'): ToolContext {
  return { signal, workspace, sessionKey: 'agent:main:telegram:bot:dm:42', userId: '42' };
}

export function agentInput(model: ChatModel, tools: AgentTool[], overrides: Partial<AgentInput> = {}): AgentInput {
  const signal = overrides.signal ?? new AbortController().signal;
  let now = 1_000;
  return {
    runId: 'run-1',
    system: 'You are a test agent.',
    messages: [userText('hello')],
    tools,
    model,
    maxIterations: 20,
    signal,
    toolContext: testToolContext(signal),
    clock: () => (now += 10),
    ...overrides,
  };
}

export async function collectEvents(input: AgentInput): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of runAgent(input)) events.push(event);
  return events;
}

export function terminalOf(events: AgentEvent[]): TerminalEvent {
  const last = events.at(-1);
  if (!last || (last.type !== 'run-end' && last.type !== 'run-error' && last.type !== 'run-cancel' && last.type !== 'run-park')) {
    throw new Error(`the run did not end with a terminal event: ${JSON.stringify(last)}`);
  }
  return last;
}

export function eventTypes(events: AgentEvent[]): string[] {
  return events.map((event) => event.type);
}
