import { ToolSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './mcp-config.js';
import type { SchemaCompiler } from './argument-validator.js';

/** What OpenAI and Anthropic accept as a tool name. */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Providers cap the tools of one request (OpenAI: 128); it also bounds the metrics' tool label. */
export const MAX_TOOLS_PER_SERVER = 100;

export function exposedToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

export interface SelectedTool {
  definition: Tool;
  /** `<server>__<tool>`, as the model sees it. */
  exposedName: string;
  validate: (args: unknown) => string[];
}

export interface SkippedTool {
  name: string;
  reason: string;
}

export interface ToolSelection {
  selected: SelectedTool[];
  /** Tools the model cannot be given; reported once per connection. */
  skipped: SkippedTool[];
  /** Left out on purpose by the server's allow/deny lists. */
  filteredOut: string[];
}

function isAllowed(server: McpServerConfig, name: string): boolean {
  if (server.tools.deny?.includes(name)) return false;
  return server.tools.allow === undefined || server.tools.allow.includes(name);
}

function firstIssue(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}

type Verdict = { ok: true; tool: SelectedTool } | { ok: false; reason: string };

function judge(server: McpServerConfig, raw: Record<string, unknown>, name: string, compiler: SchemaCompiler): Verdict {
  const exposedName = exposedToolName(server.name, name);
  if (!PROVIDER_TOOL_NAME.test(exposedName)) {
    return { ok: false, reason: `the name ${JSON.stringify(exposedName)} is refused by the model providers (letters, digits, _ and - only, at most 64 characters)` };
  }
  const inputSchema = raw.inputSchema;
  if (typeof inputSchema !== 'object' || inputSchema === null || (inputSchema as { type?: unknown }).type !== 'object') {
    return { ok: false, reason: 'its input schema is not `type: object` at the top level, which the model providers refuse' };
  }
  const parsed = ToolSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: `its definition is invalid (${firstIssue(parsed.error)})` };
  if (parsed.data.execution?.taskSupport === 'required') {
    return { ok: false, reason: 'it can only run as an MCP task, which this client does not support' };
  }
  const compiled = compiler.compile(inputSchema as Record<string, unknown>);
  if (!compiled.ok) return { ok: false, reason: compiled.reason };
  return { ok: true, tool: { definition: parsed.data, exposedName, validate: compiled.validate } };
}

/**
 * Turns a server's raw tool listing into the tools the model may see. Each tool is judged on
 * its own: one unusable tool (a name or schema the providers refuse, a schema that does not
 * compile) is skipped with its reason, never the whole server.
 */
export function selectTools(server: McpServerConfig, listing: unknown[], compiler: SchemaCompiler): ToolSelection {
  const selection: ToolSelection = { selected: [], skipped: [], filteredOut: [] };
  const seen = new Set<string>();
  for (const raw of listing) {
    const name = typeof raw === 'object' && raw !== null && typeof (raw as { name?: unknown }).name === 'string' ? (raw as { name: string }).name : undefined;
    if (name === undefined) {
      selection.skipped.push({ name: '(unnamed)', reason: 'its definition has no name' });
      continue;
    }
    if (!isAllowed(server, name)) {
      selection.filteredOut.push(name);
      continue;
    }
    if (seen.has(name)) {
      selection.skipped.push({ name, reason: 'the server lists it twice; the first definition is used' });
      continue;
    }
    seen.add(name);
    if (selection.selected.length >= MAX_TOOLS_PER_SERVER) {
      selection.skipped.push({ name, reason: `the server offers more than ${MAX_TOOLS_PER_SERVER} tools (narrow them with tools.allow)` });
      continue;
    }
    const verdict = judge(server, raw as Record<string, unknown>, name, compiler);
    if (verdict.ok) selection.selected.push(verdict.tool);
    else selection.skipped.push({ name, reason: verdict.reason });
  }
  return selection;
}
