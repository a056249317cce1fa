import { Type } from '@sinclair/typebox';
import { userText } from '../../core/chat-message.js';
import { BotError, errorMessage } from '../../core/errors.js';
import type { ChatModel } from '../../llm/chat-model.js';
import { cancelledError } from '../abortable.js';
import { isTerminalEvent, type TerminalEvent, type TraceSpan } from '../agent-events.js';
import { runAgent } from '../agent-loop.js';
import type { ContextControl } from '../context/context-control.js';
import type { PriceTable } from '../pricing.js';
import { buildSubagentPrompt } from '../prompt/build-system-prompt.js';
import type { TurnStep } from '../turn-steps.js';
import { defineTool, ToolError, type AgentTool, type ToolContext } from './agent-tool.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { needsApproval } from './tool-registry.js';

export const SPAWN_AGENT_TOOL = 'spawn_agent';

/** Never offered to a child, whatever their flags say (CONTRACT §18): they run commands, write, send, schedule or change memory. */
export const TOOLS_DENIED_TO_CHILDREN: ReadonlySet<string> = new Set([
  'bash',
  'write_file',
  'send_file',
  'schedule_task',
  'cancel_task',
  'remember',
  'forget',
  SPAWN_AGENT_TOOL,
]);

/** An agent a child runs as: its model (already charged to the turn's budgets) and all of its tools. */
export interface SubagentSetup {
  id: string;
  model: ChatModel;
  /** The agent's tools; the child is offered only the read-only ones. */
  tools: AgentTool[];
  /** Its identity prompt (unset: the built-in persona). */
  identity: string | undefined;
  maxIterations: number;
  /** Its `toolPolicy.requireApproval` patterns: a tool that would wait for a person is not offered. */
  requireApproval: readonly string[];
}

export interface SpawnAgentOptions {
  /** Depth of the agent that owns this tool: 0 for the turn's own agent. */
  depth: number;
  /** SUBAGENT_MAX_DEPTH: a child at this depth is not offered `spawn_agent`. */
  maxDepth: number;
  /** SUBAGENT_MAX_PARALLEL: children of one model response running at once. */
  maxParallel: number;
  /** The named agent (undefined: the calling agent); undefined when there is no such agent. */
  agentFor(name: string | undefined): Promise<SubagentSetup | undefined>;
  /** The names `agent` may take, for the description and the error about an unknown one. */
  agentNames: readonly string[];
  /** The parent run's id: a child's run id is `<parent>/<tool call id>`. */
  runId: string;
  clock: () => number;
  prices?: PriceTable | undefined;
  traceVerbose?: boolean | undefined;
  /** Context pressure for a child's requests (its own tool results can grow); absent: sent as built. */
  contextFor?: ((model: ChatModel) => ContextControl) | undefined;
}

/** Read-only, needing nobody's approval, and not on the list children never get. */
export function isChildTool(tool: AgentTool, requireApproval: readonly string[]): boolean {
  return tool.category === 'read' && tool.privileged !== true && !needsApproval(tool, requireApproval) && !TOOLS_DENIED_TO_CHILDREN.has(tool.name);
}

const Parameters = Type.Object({
  prompt: Type.String({
    minLength: 1,
    description: 'The whole task for the sub-agent: it sees nothing of this conversation, so include every fact, name and file path it needs, and say what answer you want back.',
  }),
  agent: Type.Optional(Type.String({ minLength: 1, description: 'Which agent runs the task (default: yourself).' })),
});

/**
 * `spawn_agent { prompt, agent? }` (CONTRACT §18, seed 002 §4): runs a child agent — the same `runAgent` loop with
 * other inputs — on the prompt alone (none of the parent's messages), with the minimal prompt and read-only tools,
 * and returns its final text. Its model and tool calls become spans of the parent's run under this call (reported
 * through the call's context, with their tokens and cost, each saved in the parent's checkpoint as it happens); the
 * parent's signal stops it; the loop checkpoints its result like any tool result, so a retried or taken-over turn
 * does not run a finished child again, and one cut short runs again with the first attempt's calls still counted,
 * once. A child that fails (a budget used up, a model that keeps failing) is a tool error the parent can explain.
 */
export function createSpawnAgentTool(options: SpawnAgentOptions): AgentTool {
  const limit = new ConcurrencyLimit(options.maxParallel);
  return defineTool({
    name: SPAWN_AGENT_TOOL,
    description: descriptionFor(options.agentNames),
    parameters: Parameters,
    // the child only reads: running it again after a crash mid-run is safe (a finished one is never run again)
    category: 'read',
    label: 'Asking a helper agent…',
    async execute({ prompt, agent: name }, context) {
      const release = await limit.acquire(context.signal);
      try {
        const agent = await options.agentFor(name);
        if (!agent) throw new ToolError(`there is no agent named "${name}"; agents: ${options.agentNames.join(', ')}`);
        const { terminal, spans } = await runChild(options, agent, prompt, context);
        if (context.recordSpan) {
          for (const span of spans) await context.recordSpan(span);
        } else {
          context.reportSpans?.(spans);
        }
        return answerOf(terminal);
      } finally {
        release();
      }
    },
  });
}

/** The tool is made every turn; its description, once per list of agents (the same text keeps its spec cached). */
const descriptions = new WeakMap<readonly string[], string>();

function descriptionFor(agentNames: readonly string[]): string {
  let description = descriptions.get(agentNames);
  if (description === undefined) {
    const others = agentNames.length > 1 ? ` Agents you may name: ${agentNames.join(', ')}.` : '';
    description =
      'Hand a self-contained task to a sub-agent that works on it alone with read-only tools (reading files, looking things up) and returns its final answer. ' +
      'It sees only your prompt, none of this conversation. Use it for research or reading that would clutter this conversation, ' +
      `or for several independent tasks at once: calls made together run in parallel.${others}`;
    descriptions.set(agentNames, description);
  }
  return description;
}

/**
 * Runs the child. Its spans are tagged with the parent's call (a grandchild's already name their own). With the
 * parent's `recordSpan`, each span the child saves (each model call that chose tools, each tool result, a
 * grandchild's spans) goes to the parent as it happens; `spans` returns only the rest (its final answer's call, a
 * few never saved), for the caller to record at the end.
 */
async function runChild(options: SpawnAgentOptions, agent: SubagentSetup, prompt: string, context: ToolContext): Promise<{ terminal: TerminalEvent; spans: TraceSpan[] }> {
  const depth = options.depth + 1;
  const tools = agent.tools.filter((tool) => isChildTool(tool, agent.requireApproval));
  if (depth < options.maxDepth) tools.push(createSpawnAgentTool({ ...options, depth }));
  const parentCallId = context.toolCallId ?? 'unknown';
  const { reportSpans: _report, recordSpan, sendFile: _send, toolCallId: _id, ...inherited } = context;
  const tagged = (span: TraceSpan): TraceSpan => (span.parentToolCallId ? span : { ...span, parentToolCallId: parentCallId });
  const forwarded = new Set<TraceSpan>();
  const forward = recordSpan
    ? async (step: TurnStep) => {
        for (const span of spansOfStep(step)) {
          forwarded.add(span);
          await recordSpan(tagged(span));
        }
      }
    : undefined;
  let terminal: TerminalEvent | undefined;
  for await (const event of runAgent({
    runId: `${options.runId}/${parentCallId}`,
    system: buildSubagentPrompt({ identity: agent.identity, tools, workspace: context.workspace }),
    messages: [userText(prompt)],
    tools,
    model: agent.model,
    maxIterations: agent.maxIterations,
    signal: context.signal,
    toolContext: { ...inherited, agentId: agent.id },
    clock: options.clock,
    ...(options.prices ? { prices: options.prices } : {}),
    traceVerbose: options.traceVerbose ?? false,
    ...(options.contextFor ? { context: options.contextFor(agent.model) } : {}),
    // the child is never resumed (a takeover runs it again), its steps are saved only as the parent's spans
    ...(forward ? { checkpoint: forward } : {}),
  })) {
    if (isTerminalEvent(event)) terminal = event;
  }
  if (!terminal) throw new ToolError('the sub-agent ended without an answer');
  const spans = terminal.spans.filter((span) => !forwarded.has(span)).map(tagged);
  return { terminal, spans };
}

/** The spans a child's saved step carries, in the order they happened. */
function spansOfStep(step: TurnStep): TraceSpan[] {
  switch (step.type) {
    case 'model':
    case 'model-error':
    case 'context-call':
    case 'subagent-span':
      return [step.span];
    case 'tool-result':
      return [...(step.spans ?? []), step.span];
    case 'tool-start':
      return [];
  }
}

function answerOf(terminal: TerminalEvent): string {
  switch (terminal.type) {
    case 'run-end': {
      const text = terminal.reply.text.trim() || terminal.text.trim();
      return text === '' ? '(The sub-agent finished without writing an answer.)' : text;
    }
    case 'run-cancel':
      throw cancelledError();
    case 'run-park':
      throw new ToolError('the sub-agent stopped to wait for an approval, which sub-agents cannot ask for');
    case 'run-error': {
      const { error } = terminal;
      if (error instanceof BotError && error.code === 'budget-exceeded') {
        throw new ToolError(`the sub-agent was stopped: ${error.message}. No more model calls can be made until then; tell the user the usage limit was reached.`);
      }
      throw new ToolError(`the sub-agent failed: ${errorMessage(error)}`);
    }
  }
}
