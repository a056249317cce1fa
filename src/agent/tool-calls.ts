import type { ChatMessage, ToolCallPart } from '../core/chat-message.js';
import { errorMessage } from '../core/errors.js';
import { raceAbort } from './abortable.js';
import { markUntrustedToolOutput } from './input/untrusted-content.js';
import { parseToolArguments, validateToolArguments } from './tool-arguments.js';
import type { TraceSpan } from './agent-events.js';
import type { AgentTool, ToolContext } from './tools/agent-tool.js';

export interface ToolCallOutcome {
  call: ToolCallPart;
  content: string;
  isError: boolean;
  /** The run was cancelled before or while this tool ran. */
  cancelled: boolean;
  startedAt: number;
  durationMs: number;
  /** Spans of the work the call did for the run (a sub-agent's model and tool calls), reported through its context. */
  spans?: TraceSpan[] | undefined;
}

/** What the `tool-call-start` event shows: the parsed arguments, or `{ _raw }` when they are not JSON. */
export function displayedArguments(call: ToolCallPart): unknown {
  const parsed = parseToolArguments(call.arguments);
  return parsed.ok ? parsed.value : { _raw: parsed.raw };
}

export function toolResultMessage(outcome: ToolCallOutcome): ChatMessage {
  const { call, content, isError } = outcome;
  return { role: 'tool', parts: [{ type: 'tool-result', toolCallId: call.id, name: call.name, content, isError }] };
}

type Attempt = { content: string; isError: boolean };

/** A tool written in plain JavaScript may still return something other than a string. */
function asText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
}

async function attempt(call: ToolCallPart, tool: AgentTool | undefined, tools: ReadonlyMap<string, AgentTool>, context: ToolContext): Promise<Attempt> {
  if (!tool) {
    const unavailable = context.missingTool?.(call.name, context.agentId);
    if (unavailable !== undefined) return { content: unavailable, isError: true };
    return { content: `Error: Unknown tool '${call.name}'. Available tools: ${[...tools.keys()].join(', ') || 'none'}.`, isError: true };
  }
  context = { ...context, toolCallId: call.id };
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok && tool.executeRaw) {
    return { content: asText(await raceAbort(tool.executeRaw(parsed.raw, context), context.signal)), isError: false };
  }
  const args = parsed.ok ? parsed.value : { _raw: parsed.raw };
  const problems = tool.validateArguments ? tool.validateArguments(args) : validateToolArguments(tool.parameters, args);
  if (problems.length > 0) {
    const content = parsed.ok
      ? `Error: invalid arguments for tool '${call.name}':\n${problems.map((problem) => `- ${problem}`).join('\n')}`
      : `Error: the arguments for tool '${call.name}' are not valid JSON (${parsed.reason}). Send one JSON object matching the tool's parameters.`;
    return { content, isError: true };
  }
  return { content: asText(await raceAbort(tool.execute(args as never, context), context.signal)), isError: false };
}

/** Error-as-content: whatever goes wrong becomes a result the model can read; nothing throws. */
export async function executeToolCall(
  call: ToolCallPart,
  tools: ReadonlyMap<string, AgentTool>,
  context: ToolContext,
  clock: () => number,
): Promise<ToolCallOutcome> {
  const startedAt = clock();
  const spans: TraceSpan[] = [];
  context = { ...context, reportSpans: (more) => spans.push(...more) };
  const finish = (result: Attempt, cancelled = false): ToolCallOutcome => ({
    call,
    content: cancelled ? result.content : markUntrustedToolOutput(result.content),
    isError: result.isError,
    cancelled,
    startedAt,
    durationMs: clock() - startedAt,
    ...(spans.length > 0 ? { spans: [...spans] } : {}),
  });
  const cancelledResult = { content: 'Error: tool call cancelled because the run was stopped.', isError: true };
  if (context.signal.aborted) return finish(cancelledResult, true);
  try {
    await context.ensureWorkspace?.();
    return finish(await attempt(call, tools.get(call.name), tools, context));
  } catch (error) {
    if (context.signal.aborted) return finish(cancelledResult, true);
    return finish({ content: `Error: ${errorMessage(error)}`, isError: true });
  }
}

/** One call runs inline; several run in parallel, and the outcomes come back in call order. */
export async function executeToolCalls(
  calls: ToolCallPart[],
  tools: ReadonlyMap<string, AgentTool>,
  context: ToolContext,
  clock: () => number,
): Promise<ToolCallOutcome[]> {
  if (calls.length === 1 && calls[0]) return [await executeToolCall(calls[0], tools, context, clock)];
  return Promise.all(calls.map((call) => executeToolCall(call, tools, context, clock)));
}
