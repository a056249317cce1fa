import { BotError } from '../../core/errors.js';
import type { AgentTool } from './agent-tool.js';

/**
 * Per-agent tool policy: `admin` tools listed in `allowAdminTools` (or all, with `true`) run freely; the
 * others wait for a person's approval in the chat. `requireApproval` names more tools that wait (patterns:
 * `*`, `<server>__*`, exact names).
 */
export interface ToolPolicy {
  allowAdminTools: string[] | boolean;
  requireApproval?: string[];
}

export const DEFAULT_TOOL_POLICY: ToolPolicy = { allowAdminTools: false };

export function isToolAllowed(tool: AgentTool, policy: ToolPolicy): boolean {
  switch (tool.category) {
    case 'read':
    case 'write':
      return true;
    case 'admin':
      return policy.allowAdminTools === true || (Array.isArray(policy.allowAdminTools) && policy.allowAdminTools.includes(tool.name));
  }
}

/** `*` matches any run of characters; everything else literally. */
export function matchesToolPattern(pattern: string, name: string): boolean {
  const expression = pattern
    .split('*')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${expression}$`).test(name);
}

/** Whether a call of this tool waits for a person: the tool says so (admin, MCP `approval: always`) or a pattern names it. */
export function needsApproval(tool: Pick<AgentTool, 'name' | 'requiresApproval'>, patterns: readonly string[] = []): boolean {
  return tool.requiresApproval === true || patterns.some((pattern) => matchesToolPattern(pattern, tool.name));
}

/** Admin tools the policy does not allow outright stay usable, each call waiting for a person's approval. */
export function applyToolPolicy(tools: AgentTool[], policy: ToolPolicy): AgentTool[] {
  return tools.map((tool) => (isToolAllowed(tool, policy) ? tool : { ...tool, requiresApproval: true }));
}

/** The tools known to the process; each agent gets its view through `toolsFor(policy)`. */
export class ToolRegistry {
  readonly #tools = new Map<string, AgentTool>();

  constructor(tools: AgentTool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AgentTool): void {
    if (this.#tools.has(tool.name)) throw new BotError('config', `tool ${tool.name}: declared twice`);
    this.#tools.set(tool.name, tool);
  }

  get(name: string): AgentTool | undefined {
    return this.#tools.get(name);
  }

  list(): AgentTool[] {
    return [...this.#tools.values()];
  }

  /** The registered tools with the policy applied; `names` narrows the set (an agent's tool list). */
  toolsFor(policy: ToolPolicy, names?: string[]): AgentTool[] {
    const selected = names ? this.list().filter((tool) => names.includes(tool.name)) : this.list();
    return applyToolPolicy(selected, policy);
  }
}
