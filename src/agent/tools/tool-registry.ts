import { BotError } from '../../core/errors.js';
import { ToolError, type AgentTool } from './agent-tool.js';

/** Per-agent tool policy: `admin` tools run only when listed here (or when `true`). */
export interface ToolPolicy {
  allowAdminTools: string[] | boolean;
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

/**
 * Keeps a refused tool visible to the model but makes every call an error result, so the model
 * can tell the user that approval is needed instead of guessing why the tool is missing.
 */
function refusedTool(tool: AgentTool): AgentTool {
  const refuse = async (): Promise<string> => {
    throw new ToolError(
      `Tool '${tool.name}' requires approval: it is an admin tool and this agent's policy does not allow it. ` +
        'Tell the user that an administrator must enable it.',
    );
  };
  return { name: tool.name, description: tool.description, parameters: tool.parameters, category: tool.category, execute: refuse, executeRaw: refuse };
}

export function applyToolPolicy(tools: AgentTool[], policy: ToolPolicy): AgentTool[] {
  return tools.map((tool) => (isToolAllowed(tool, policy) ? tool : refusedTool(tool)));
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
