import { assistantText, textOf, toolCallsOf, userText, type ChatMessage, type ToolCallPart } from '../core/chat-message.js';
import { BotError, isAbortError } from '../core/errors.js';
import type { ChatModel, ChatRequest, ModelResponse, ToolSpec } from '../llm/chat-model.js';
import type { AgentEvent, TraceSpan } from './agent-events.js';
import { deniedToolResult, type ApprovalGate, type ApprovalVerdict } from '../core/approval.js';
import type { ContextControl, PreparedRequest } from './context/context-control.js';
import { promptSplitOf, type PromptMarkers } from './context/prompt-split.js';
import { DEFAULT_MAX_REPEATED_TOOL_CALLS, LoopDetector, REPEATED_CALL_RESULT, repeatedCallPrompt } from './loop-detection.js';
import { callModel } from './model-call.js';
import { finalizeReply } from './output/silent-reply.js';
import type { PriceTable } from './pricing.js';
import { RunAccounting } from './run-accounting.js';
import { displayedArguments, executeToolCall, toolResultMessage, type ToolCallOutcome } from './tool-calls.js';
import type { AgentTool, ToolContext } from './tools/agent-tool.js';
import { toolLabel } from './tools/tool-label.js';
import { replaySteps, type LlmSpan, type TurnProgress, type TurnStep } from './turn-steps.js';

export interface AgentInput {
  runId: string;
  system: string;
  /** History plus the new user message(s); `context` shapes it before each call. */
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
  /** Steps an earlier attempt of this turn completed: the run continues after them. */
  resume?: TurnStep[];
  /** Makes each step durable before the run goes on; a rejection ends the run (the turn was taken over). */
  checkpoint?: (step: TurnStep) => Promise<void>;
  /** Context pressure: shapes every request (see context/). Absent: requests go out as built. */
  context?: ContextControl;
  /** Identical consecutive tool calls that end the turn (default 3; 0 turns detection off). */
  maxRepeatedToolCalls?: number;
  /** Sent with every request: the provider keeps this session's prompt prefix warm (see ChatRequest.cacheKey). */
  cacheKey?: string;
  /** Asked before every tool call (approval in chat); absent: every call runs. */
  approvals?: ApprovalGate;
  /** The prompt's parts the turn knows: each model call's span then records where its prompt went (PromptSplit). */
  promptMarkers?: PromptMarkers;
}

export const MAX_ITERATIONS_SUMMARY_PROMPT =
  'You have reached the maximum number of steps for this turn and cannot call any more tools. ' +
  'Summarize for the user what you did, what you found, and what is left to do, so they can decide how to continue.';

export const MAX_ITERATIONS_FALLBACK =
  "I'm sorry, this task needed more steps than I can take in one turn, so I had to stop before finishing. " +
  'Tell me if you would like me to continue from where I left off.';

export const INTERRUPTED_TOOL_RESULT =
  'Error: this tool call was interrupted (the service restarted while it ran), so it may or may not have taken effect. ' +
  'It was not run again. Check its effect before deciding to run it again.';

/** The provider refused a request as too long: shrink and retry it this many times before the run fails. */
const CONTEXT_OVERFLOW_RETRIES = 2;

/**
 * One spec object per tool for the life of the process: the request's tool list is then made of the same objects
 * turn after turn, and what is derived from a spec (its wire form, its token estimate) is worked out once.
 */
const specs = new WeakMap<AgentTool, ToolSpec>();
/**
 * The same for a tool made anew every turn (`spawn_agent` closes over its turn): the spec last made for its parameters
 * schema, while the name and description are the same, so that its derived forms are not worked out again either.
 */
const specsBySchema = new WeakMap<object, ToolSpec>();

function toolSpec(tool: AgentTool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    spec = sharedSpec(tool);
    specs.set(tool, spec);
  }
  return spec;
}

function sharedSpec(tool: AgentTool): ToolSpec {
  const parameters = tool.parameters as unknown as Record<string, unknown>;
  const known = specsBySchema.get(parameters);
  if (known && known.name === tool.name && known.description === tool.description) return known;
  const spec = { name: tool.name, description: tool.description, parameters };
  specsBySchema.set(parameters, spec);
  return spec;
}

function cacheKeyOf(input: AgentInput): { cacheKey?: string } {
  return input.cacheKey === undefined ? {} : { cacheKey: input.cacheKey };
}

function isContextLength(error: unknown): boolean {
  return error instanceof BotError && error.code === 'context-length';
}

/** What one run works on; the history and the accounting grow together. */
class RunState {
  readonly history: ChatMessage[];
  readonly tools: Map<string, AgentTool>;
  readonly toolSpecs: ToolSpec[];
  readonly toolContext: ToolContext;
  readonly run: RunAccounting;
  readonly clock: () => number;
  readonly loops: LoopDetector;

  constructor(
    readonly input: AgentInput,
    readonly resumed: TurnProgress,
  ) {
    this.clock = input.clock ?? Date.now;
    this.history = [...input.messages, ...resumed.messages];
    this.tools = new Map(input.tools.map((tool) => [tool.name, tool]));
    this.toolSpecs = input.tools.map(toolSpec);
    this.toolContext = { ...input.toolContext, signal: input.signal };
    this.run = new RunAccounting(input.model, this.clock, { traceVerbose: input.traceVerbose ?? false, prices: input.prices }, resumed);
    this.loops = new LoopDetector(input.maxRepeatedToolCalls ?? DEFAULT_MAX_REPEATED_TOOL_CALLS);
    for (const message of resumed.messages) this.loops.observe(toolCallsOf(message));
  }

  append(message: ChatMessage): void {
    this.history.push(message);
    this.run.messages.push(message);
  }

  async checkpoint(step: TurnStep): Promise<void> {
    await this.input.checkpoint?.(step);
  }

  cancelled(by: 'signal' | 'user' = 'signal'): AgentEvent {
    return { type: 'run-cancel', by, ...this.run.outcome() };
  }

  parked(untilMs: number, toolName: string): AgentEvent {
    return { type: 'run-park', untilMs, toolName, ...this.run.outcome() };
  }

  ended(text: string): AgentEvent {
    return { type: 'run-end', text, reply: finalizeReply(text), ...this.run.outcome() };
  }
}

/** One model call through the context control: a "too long" refusal shrinks the request and tries again. */
async function* modelStep(
  state: RunState,
  request: Omit<ChatRequest, 'signal'>,
  iteration: number,
): AsyncGenerator<AgentEvent, ModelResponse & { span: LlmSpan }> {
  const { input, run } = state;
  for (let overflowed = 0; ; overflowed++) {
    // calls the preparation makes (a mid-turn summary) count in the run at once, so a stop halfway keeps them too
    const made: LlmSpan[] = [];
    const onSpan = (span: LlmSpan) => {
      run.recordSpan(span);
      made.push(span);
    };
    const prepared: PreparedRequest = input.context ? await input.context.prepare(request, { overflowed, signal: input.signal, onSpan }) : { request };
    for (const span of made) await state.checkpoint({ type: 'context-call', span });
    try {
      const failedAttempt = (span: LlmSpan) => state.checkpoint({ type: 'model-error', span });
      const promptSplit = input.promptMarkers ? promptSplitOf(prepared.request, input.promptMarkers) : undefined;
      const response = yield* callModel(input.model, prepared.request, input.signal, run, iteration, state.clock, failedAttempt, promptSplit);
      input.context?.observe(prepared, response.usage);
      return response;
    } catch (error) {
      const span = run.spans.at(-1);
      if (span?.kind === 'llm' && !input.signal.aborted) await state.checkpoint({ type: 'model-error', span });
      if (isContextLength(error) && input.context && overflowed < CONTEXT_OVERFLOW_RETRIES && !input.signal.aborted) continue;
      throw error;
    }
  }
}

/** How a tool step ended: every call has its result, or some wait for a person (park), or the user stopped the turn. */
type ToolStepEnd = { kind: 'done' } | { kind: 'park'; untilMs: number; toolName: string } | { kind: 'stop' };

/**
 * Runs tool calls (in parallel when several), checkpointing each result as it lands; results join the history
 * in call order. Calls that need a person's approval run only once allowed; a denied call gets a result saying
 * so; while any waits, the others still run and the step ends with `park` (their results are saved).
 */
async function* toolStep(state: RunState, calls: ToolCallPart[], interrupted: ReadonlySet<string> = new Set()): AsyncGenerator<AgentEvent, ToolStepEnd> {
  const { run } = state;
  const verdicts = new Map<string, ApprovalVerdict>();
  const gate = state.input.approvals;
  for (const call of calls) {
    const tool = state.tools.get(call.name);
    if (!tool || interrupted.has(call.id)) continue;
    if (gate) verdicts.set(call.id, await gate.check(call, tool));
    else if (tool.requiresApproval) verdicts.set(call.id, { kind: 'deny', reason: 'it needs a person\'s approval and nobody can be asked here' });
  }
  if ([...verdicts.values()].some((verdict) => verdict.kind === 'stop')) return { kind: 'stop' };
  for (const call of calls) {
    const verdict = verdicts.get(call.id);
    if ((verdict?.kind === 'allow' || verdict?.kind === 'deny') && verdict.decision) run.recordApproval(call.id, call.name, verdict.decision, verdict.kind === 'allow');
  }
  const waiting = calls.filter((call) => verdicts.get(call.id)?.kind === 'wait');
  const ready = calls.filter((call) => !waiting.includes(call));

  for (const call of ready) {
    const args = displayedArguments(call);
    const label = toolLabel(state.tools.get(call.name), args);
    yield { type: 'tool-call-start', toolCallId: call.id, name: call.name, args, ...(label !== undefined ? { label } : {}) };
  }
  const runOne = async (call: ToolCallPart): Promise<ToolCallOutcome> => {
    const tool = state.tools.get(call.name);
    const verdict = verdicts.get(call.id);
    let outcome: ToolCallOutcome;
    if (interrupted.has(call.id)) {
      const now = state.clock();
      outcome = { call, content: INTERRUPTED_TOOL_RESULT, isError: true, cancelled: false, startedAt: now, durationMs: 0 };
    } else if (verdict?.kind === 'deny') {
      const now = state.clock();
      outcome = { call, content: verdict.toolResult ?? deniedToolResult(verdict.reason), isError: true, cancelled: false, startedAt: now, durationMs: 0 };
    } else {
      // Only a tool with side effects needs the mark: a read can safely run again after a crash.
      if (tool && tool.category !== 'read' && !state.input.signal.aborted) await state.checkpoint({ type: 'tool-start', toolCallId: call.id });
      // a sub-agent's spans count and are saved as they happen: a crash mid-call loses none that was charged
      const recordSpan = async (span: TraceSpan) => {
        run.recordSpan(span);
        await state.checkpoint({ type: 'subagent-span', toolCallId: call.id, span });
      };
      outcome = await executeToolCall(call, state.tools, { ...state.toolContext, recordSpan }, state.clock);
    }
    const span = run.recordToolCall(outcome);
    if (!outcome.cancelled) {
      const spans = outcome.spans?.length ? { spans: outcome.spans } : {};
      await state.checkpoint({ type: 'tool-result', toolCallId: call.id, name: call.name, content: outcome.content, isError: outcome.isError, span, ...spans });
    }
    return outcome;
  };
  const outcomes = ready.length === 1 ? [await runOne(ready[0]!)] : await Promise.all(ready.map(runOne));
  if (waiting.length > 0) {
    const untilMs = Math.min(...waiting.map((call) => (verdicts.get(call.id) as Extract<ApprovalVerdict, { kind: 'wait' }>).untilMs));
    return { kind: 'park', untilMs, toolName: waiting[0]!.name };
  }
  for (const outcome of outcomes) {
    state.append(toolResultMessage(outcome));
    yield { type: 'tool-call-end', toolCallId: outcome.call.id, name: outcome.call.name, isError: outcome.isError, output: outcome.content };
  }
  return { kind: 'done' };
}

/** What a tool step's end means for the run: go on, or end it here (parked or stopped). */
function endOfToolStep(state: RunState, end: ToolStepEnd): AgentEvent | undefined {
  if (end.kind === 'park') return state.parked(end.untilMs, end.toolName);
  if (end.kind === 'stop') return state.cancelled('user');
  return undefined;
}

/** One more call without tools, so the user hears where things stand (iteration limit, repeated calls). */
async function* answerWithoutTools(state: RunState, prompt: string, fallback: string): AsyncGenerator<AgentEvent, ChatMessage> {
  const { input } = state;
  try {
    const messages = [...state.history, userText(prompt)];
    const response = yield* modelStep(state, { system: input.system, messages, toolChoice: 'none', ...cacheKeyOf(input) }, state.run.iterations + 1);
    if (textOf(response.message).trim() !== '') {
      return { role: 'assistant', parts: response.message.parts.filter((part) => part.type !== 'tool-call') };
    }
  } catch (error) {
    if (input.signal.aborted || isAbortError(error)) throw error;
  }
  return assistantText(fallback);
}

/** The iterations; returns the terminal event (errors are thrown to `runAgent`). */
async function* iterate(state: RunState): AsyncGenerator<AgentEvent, AgentEvent> {
  const { input, run, resumed } = state;
  if (resumed.pendingCallIds.length > 0) {
    // A resumed turn first owes results to the calls its last model step made.
    const last = state.history.findLast((message) => message.role === 'assistant');
    const pending = last ? toolCallsOf(last).filter((call) => resumed.pendingCallIds.includes(call.id)) : [];
    const ended = endOfToolStep(state, yield* toolStep(state, pending, resumed.interruptedCallIds));
    if (ended) return ended;
  }
  while (run.iterations < input.maxIterations) {
    if (input.signal.aborted) return state.cancelled();
    run.iterations++;
    const tools = state.toolSpecs.length > 0 ? { tools: state.toolSpecs } : {};
    const response = yield* modelStep(state, { system: input.system, messages: [...state.history], ...tools, ...cacheKeyOf(input) }, run.iterations);
    state.append(response.message);
    const calls = toolCallsOf(response.message);
    if (calls.length === 0) return state.ended(textOf(response.message));
    await state.checkpoint({ type: 'model', message: response.message, span: response.span });

    const repeated = state.loops.observe(calls);
    if (repeated) {
      yield { type: 'loop-detected', name: repeated.call.name, times: repeated.times };
      for (const call of calls) {
        const now = state.clock();
        const outcome: ToolCallOutcome = { call, content: REPEATED_CALL_RESULT, isError: true, cancelled: false, startedAt: now, durationMs: 0 };
        run.recordToolCall(outcome);
        state.append(toolResultMessage(outcome));
      }
      const answer = yield* answerWithoutTools(state, repeatedCallPrompt(repeated.call.name, repeated.times), MAX_ITERATIONS_FALLBACK);
      state.append(answer);
      return state.ended(textOf(answer));
    }
    const ended = endOfToolStep(state, yield* toolStep(state, calls));
    if (ended) return ended;
  }
  if (input.signal.aborted) return state.cancelled();
  const summary = yield* answerWithoutTools(state, MAX_ITERATIONS_SUMMARY_PROMPT, MAX_ITERATIONS_FALLBACK);
  state.append(summary);
  return state.ended(textOf(summary));
}

/**
 * One agent turn as a stream of events: LLM → tools → LLM until the model answers without tool
 * calls, the iteration limit is reached, the same call repeats, the signal aborts, or the model fails.
 * Pure: no I/O besides the injected model, tools, checkpoint and context control. Given the steps of
 * an earlier attempt it continues after them, never running a recorded tool call again. The last event
 * is always run-end, run-error, run-cancel or run-park (a tool call waits for a person's approval).
 */
export async function* runAgent(input: AgentInput): AsyncGenerator<AgentEvent> {
  const state = new RunState(input, replaySteps(input.resume ?? []));
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
