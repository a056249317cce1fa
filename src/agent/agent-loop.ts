import { assistantText, textOf, toolCallsOf, userText, type ChatMessage } from '../core/chat-message.js';
import { isAbortError } from '../core/errors.js';
import type { ChatModel, ToolSpec } from '../llm/chat-model.js';
import type { AgentEvent } from './agent-events.js';
import { callModel } from './model-call.js';
import { finalizeReply } from './output/silent-reply.js';
import type { PriceTable } from './pricing.js';
import { RunAccounting } from './run-accounting.js';
import { displayedArguments, executeToolCalls, toolResultMessage } from './tool-calls.js';
import type { AgentTool, ToolContext } from './tools/agent-tool.js';

export interface AgentInput {
  runId: string;
  system: string;
  /** History (already through the history pipeline) plus the new user message. */
  messages: ChatMessage[];
  tools: AgentTool[];
  model: ChatModel;
  maxIterations: number;
  signal: AbortSignal;
  toolContext: ToolContext;
  clock?: () => number;
  /** Store the request messages on each LLM span (truncated at 50,000 characters). */
  traceVerbose?: boolean;
  prices?: PriceTable;
}

export const MAX_ITERATIONS_SUMMARY_PROMPT =
  'You have reached the maximum number of steps for this turn and cannot call any more tools. ' +
  'Summarize for the user what you did, what you found, and what is left to do, so they can decide how to continue.';

export const MAX_ITERATIONS_FALLBACK =
  "I'm sorry, this task needed more steps than I can take in one turn, so I had to stop before finishing. " +
  'Tell me if you would like me to continue from where I left off.';

function toolSpec(tool: AgentTool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters as unknown as Record<string, unknown> };
}

/** What one run works on; the history and the accounting grow together. */
class RunState {
  readonly history: ChatMessage[];
  readonly tools: Map<string, AgentTool>;
  readonly toolSpecs: ToolSpec[];
  readonly toolContext: ToolContext;
  readonly run: RunAccounting;
  readonly clock: () => number;

  constructor(readonly input: AgentInput) {
    this.clock = input.clock ?? Date.now;
    this.history = [...input.messages];
    this.tools = new Map(input.tools.map((tool) => [tool.name, tool]));
    this.toolSpecs = input.tools.map(toolSpec);
    this.toolContext = { ...input.toolContext, signal: input.signal };
    this.run = new RunAccounting(input.model, this.clock, { traceVerbose: input.traceVerbose ?? false, prices: input.prices });
  }

  append(message: ChatMessage): void {
    this.history.push(message);
    this.run.messages.push(message);
  }

  cancelled(): AgentEvent {
    return { type: 'run-cancel', ...this.run.outcome() };
  }

  ended(text: string): AgentEvent {
    return { type: 'run-end', text, reply: finalizeReply(text), ...this.run.outcome() };
  }
}

/** The limit: one more call without tools, on a copy of the history, so the user hears where things stand. */
async function* summaryAtLimit(state: RunState): AsyncGenerator<AgentEvent, ChatMessage> {
  const { input, run } = state;
  try {
    const messages = [...state.history, userText(MAX_ITERATIONS_SUMMARY_PROMPT)];
    const request = { system: input.system, messages, toolChoice: 'none' as const };
    const response = yield* callModel(input.model, request, input.signal, run, run.iterations + 1, state.clock);
    if (textOf(response.message).trim() !== '') {
      return { role: 'assistant', parts: response.message.parts.filter((part) => part.type !== 'tool-call') };
    }
  } catch (error) {
    if (input.signal.aborted || isAbortError(error)) throw error;
  }
  return assistantText(MAX_ITERATIONS_FALLBACK);
}

/** The iterations; returns the terminal event (errors are thrown to `runAgent`). */
async function* iterate(state: RunState): AsyncGenerator<AgentEvent, AgentEvent> {
  const { input, run } = state;
  while (run.iterations < input.maxIterations) {
    if (input.signal.aborted) return state.cancelled();
    run.iterations++;
    const tools = state.toolSpecs.length > 0 ? { tools: state.toolSpecs } : {};
    const request = { system: input.system, messages: [...state.history], ...tools };
    const response = yield* callModel(input.model, request, input.signal, run, run.iterations, state.clock);
    state.append(response.message);
    const calls = toolCallsOf(response.message);
    if (calls.length === 0) return state.ended(textOf(response.message));

    for (const call of calls) yield { type: 'tool-call-start', toolCallId: call.id, name: call.name, args: displayedArguments(call) };
    const outcomes = await executeToolCalls(calls, state.tools, state.toolContext, state.clock);
    for (const outcome of outcomes) {
      run.recordToolCall(outcome);
      state.append(toolResultMessage(outcome));
      yield { type: 'tool-call-end', toolCallId: outcome.call.id, name: outcome.call.name, isError: outcome.isError, output: outcome.content };
    }
  }
  if (input.signal.aborted) return state.cancelled();
  const summary = yield* summaryAtLimit(state);
  state.append(summary);
  return state.ended(textOf(summary));
}

/**
 * One agent turn as a stream of events: LLM → tools → LLM until the model answers without tool
 * calls, the iteration limit is reached, the signal aborts, or the model fails. Pure: no I/O
 * besides the injected model and tools. The last event is always run-end, run-error or run-cancel.
 */
export async function* runAgent(input: AgentInput): AsyncGenerator<AgentEvent> {
  const state = new RunState(input);
  yield { type: 'run-start', runId: input.runId };
  let terminal: AgentEvent;
  try {
    terminal = yield* iterate(state);
  } catch (error) {
    const cancelled = input.signal.aborted || isAbortError(error);
    terminal = cancelled ? state.cancelled() : { type: 'run-error', error, ...state.run.outcome() };
  }
  yield terminal;
}
