import type { TSchema } from '@sinclair/typebox';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolError, type AgentTool } from '../agent/tools/agent-tool.js';
import { capText, DEFAULT_MAX_OUTPUT_BYTES } from '../agent/tools/output-limit.js';
import type { Metrics } from '../observability/metrics.js';
import { callFailureMessage, failureKind, McpUnavailableError } from './call-errors.js';
import type { McpServerConfig } from './mcp-config.js';
import { mapCallToolResult } from './map-call-tool-result.js';
import { saveResultFiles } from './result-files.js';
import type { SelectedTool } from './tool-selection.js';

/** The connection as a tool uses it: always the current one, so a tool outlives reconnects. */
export interface McpToolCaller {
  callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult>;
}

type Outcome = 'ok' | 'tool_error' | 'timeout' | 'cancelled' | 'failed' | 'unavailable';

/** `$schema` says which draft the server wrote; providers want the schema itself. */
function parametersOf(inputSchema: Record<string, unknown>): TSchema {
  const { $schema: _draft, ...parameters } = inputSchema;
  return parameters as unknown as TSchema;
}

function withSavedFiles(text: string, saved: string[]): string {
  if (saved.length === 0) return text || '(no output)';
  return `${text}\n\nSaved in your workspace:\n${saved.map((line) => `- ${line}`).join('\n')}`;
}

/**
 * Whether a tool only reads, in the operator's words (CONTRACT §11b): named in the server's `readOnlyTools`, or
 * annotated `readOnlyHint` by a server the operator trusts (`trustAnnotations`). A server's own hint is not enough.
 */
export function isReadOnlyTool(server: McpServerConfig, definition: SelectedTool['definition']): boolean {
  if (server.readOnlyTools.includes(definition.name)) return true;
  return server.trustAnnotations && definition.annotations?.readOnlyHint === true;
}

/** An MCP tool's human title (`title`, else `annotations.title`), as the progress line of its calls. */
export function mcpTitleOf(definition: SelectedTool['definition']): string | undefined {
  const title = definition.title ?? definition.annotations?.title;
  return typeof title === 'string' && title.trim() !== '' ? title : undefined;
}

/** One MCP tool as an AgentTool named `<server>__<tool>`, validated with the server's own JSON Schema. */
export function createMcpTool(server: McpServerConfig, tool: SelectedTool, caller: McpToolCaller, metrics?: Metrics): AgentTool {
  const { definition } = tool;
  const labels = { server: server.name, tool: definition.name };
  const readOnly = isReadOnlyTool(server, definition);
  const title = mcpTitleOf(definition);
  const execute = async (args: unknown, context: { signal: AbortSignal; workspace: string }): Promise<string> => {
    const startedAt = performance.now();
    let outcome: Outcome = 'failed';
    try {
      let result: CallToolResult;
      try {
        result = await caller.callTool(definition.name, (args ?? {}) as Record<string, unknown>, { signal: context.signal, timeoutMs: server.timeoutMs });
      } catch (error) {
        if (context.signal.aborted) outcome = 'cancelled';
        else if (error instanceof McpUnavailableError) outcome = 'unavailable';
        else if (failureKind(error) === 'timeout') outcome = 'timeout';
        const message = error instanceof McpUnavailableError ? error.message : callFailureMessage(error, server.name, definition.name, server.timeoutMs);
        throw new ToolError(message, { cause: error });
      }
      const mapped = mapCallToolResult(result);
      if (mapped.isError) {
        outcome = 'tool_error';
        throw new ToolError(capText(mapped.text || `${definition.name} failed without saying why`, DEFAULT_MAX_OUTPUT_BYTES));
      }
      const saved = await saveResultFiles(mapped, context.workspace, server.name, definition.name);
      outcome = 'ok';
      return capText(withSavedFiles(mapped.text, saved), DEFAULT_MAX_OUTPUT_BYTES);
    } finally {
      metrics?.mcpToolCalls.inc({ ...labels, outcome });
      metrics?.mcpCallSeconds.observe(labels, (performance.now() - startedAt) / 1000);
    }
  };
  return {
    name: tool.exposedName,
    description: definition.description ?? definition.title ?? `${definition.name} (MCP server ${server.name})`,
    parameters: parametersOf(definition.inputSchema),
    category: readOnly ? 'read' : 'write',
    // a tool of another system that may change things: not in a scheduled run unless allowed there, never a sub-agent's
    ...(readOnly ? {} : { privileged: true }),
    validateArguments: tool.validate,
    // the server's human title is the progress line while the call runs; none: no line
    ...(title !== undefined ? { label: title } : {}),
    ...(server.approval === 'always' ? { requiresApproval: true } : {}),
    execute,
  };
}
