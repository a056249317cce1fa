import type { Static, TSchema } from '@sinclair/typebox';
import type { OutboundFile } from '../../core/attachment.js';
import type { ConversationRef } from '../../core/inbound-message.js';
import type { TraceSpan } from '../agent-events.js';

export type ToolCategory = 'read' | 'write' | 'admin';

/** What every tool call receives besides its arguments. */
export interface ToolContext {
  signal: AbortSignal;
  /** Absolute directory of the user's workspace; file tools and subprocesses are confined to or start in it. */
  workspace: string;
  /**
   * Creates `workspace` when it is missing. A turn leaves that to its first tool call (the loop calls this before
   * every tool runs): most turns call no tool and never touch the disk. Absent: the directory exists already.
   */
  ensureWorkspace?: () => Promise<void>;
  sessionKey: string;
  /** The person whose message started the turn. */
  userId: string;
  /** Where the turn answers (chat, thread, the message it replies to); absent outside a turn (tests, doctor). */
  conversation?: ConversationRef;
  agentId?: string;
  turnId?: string;
  /** The model's id of the call being executed (stable across a resumed turn: it comes from a saved step). */
  toolCallId?: string;
  /**
   * Sends a file into the turn's conversation, at most once per turn and tool call id; absent outside a turn.
   * `alreadySent`: an earlier attempt of this call sent it (the turn was taken over), nothing was sent now.
   */
  sendFile?: (file: OutboundFile, toolCallId: string) => Promise<{ messageIds: string[]; alreadySent: boolean }>;
  /**
   * Adds spans of work the call did for the run (a sub-agent's model and tool calls) to the call's outcome: they
   * join the run's trace and their tokens and cost count in the run. Set by the loop for each call.
   */
  reportSpans?: (spans: TraceSpan[]) => void;
  /**
   * Records one span of work the call does for the run as it happens (a sub-agent's model call as soon as it is
   * answered): counted in the run and saved in its checkpoint at once, so that what a crash cuts short, and a
   * takeover runs again, is still shown and counted, once. A span given here is not reported again through
   * `reportSpans`. Set by the loop for each call; rejects when the turn was taken over.
   */
  recordSpan?: (span: TraceSpan) => Promise<void>;
  /**
   * A call to a tool the run does not have: the error the model reads instead of "Unknown tool" when the tool
   * belongs to something unavailable now (an MCP server of the agent still connecting or down); undefined: unknown.
   */
  missingTool?: (toolName: string, agentId: string | undefined) => string | undefined;
}

/**
 * A capability of the agent. `execute` returns the text the model sees; throwing turns into an
 * error result (error-as-content), never into a failed run.
 */
export interface AgentTool<TParameters extends TSchema = TSchema> {
  name: string;
  description: string;
  parameters: TParameters;
  category: ToolCategory;
  execute(args: Static<TParameters>, context: ToolContext): Promise<string>;
  /** Called instead of `execute` when the model's arguments are not JSON. */
  executeRaw?(raw: string, context: ToolContext): Promise<string>;
  /**
   * Checks the model's arguments, one line per problem (empty: valid). Absent: they are checked
   * against `parameters` as a TypeBox schema. Tools whose schema is plain JSON Schema (MCP) bring their own.
   */
  validateArguments?(args: unknown): string[];
  /** A person must allow each call before it runs (e.g. an MCP server with `approval: always`). */
  requiresApproval?: boolean;
  /**
   * Runs commands, writes files, sends them out or changes another system (bash, CLI tools, write_file,
   * send_file, MCP tools not marked read-only): in a scheduled task's run, where nobody watches, it is refused
   * unless the agent's `schedules.allowTools` names it.
   */
  privileged?: boolean;
  /**
   * What the user sees while the call runs, one short line ("Searching the web…"), or a function of the call's
   * arguments (Running `ls`…); undefined: no line. See `toolLabel`.
   */
  label?: string | ((args: Static<TParameters>) => string | undefined);
}

/** Keeps a tool's argument type tied to its schema while storing it as a plain `AgentTool`. */
export function defineTool<TParameters extends TSchema>(tool: AgentTool<TParameters>): AgentTool {
  return tool as unknown as AgentTool;
}

/** A failure a tool reports to the model; the message is shown as is. */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}
