import { commandToolSettings, defaultTools, describeSandboxHost, detectSandbox, type SubagentSetup } from './agent/index.js';
import type { AgentTool } from './agent/tools/agent-tool.js';
import type { AgentConfig, AppConfig } from './config/app-config.js';
import type { ChatSettingsResolver } from './config/chat-settings.js';
import { BotError } from './core/errors.js';
import type { InboundMessage } from './core/inbound-message.js';
import { createModelChain, type ChatModel, type FailoverOptions } from './llm/index.js';
import { unavailableServersLine, type McpToolSource } from './mcp/index.js';
import type { Logger } from './observability/logger.js';
import type { TurnAgent } from './turn/turn-dependencies.js';

interface AgentRuntime {
  config: AgentConfig;
  model: ChatModel;
  /** What `/model` may choose, by `provider:model`: the agent's model, then its `models`, each failing over to its fallbacks. */
  modelChoices: ReadonlyMap<string, ChatModel>;
  tools: AgentTool[];
}

/** Each agent's model and tools, built once per worker process; a turn picks its message's agent. */
export class AgentRuntimes {
  readonly #runtimes = new Map<string, AgentRuntime>();
  readonly #default: AgentRuntime;
  readonly #warned = new Set<string>();
  readonly #collisions = new Set<string>();

  constructor(
    config: AppConfig,
    private readonly chats: ChatSettingsResolver,
    private readonly logger: Logger,
    /** MCP servers' tools, asked for at each turn's start (a server that is down offers none). */
    private readonly mcp?: McpToolSource,
    /** Tools every agent has besides its configured ones (memory, schedules). */
    serviceTools: AgentTool[] = [],
    /** The cool-downs and reports of failover chains; absent: fallback models are not used. */
    failover?: FailoverOptions,
  ) {
    for (const agent of config.agents) {
      const model = createModelChain(agent.llm, agent.fallbackModels, failover);
      this.#runtimes.set(agent.id, {
        config: agent,
        model,
        modelChoices: modelChoicesOf(agent, model, failover),
        tools: [...toolsOf(agent), ...serviceTools],
      });
    }
    this.#default = this.#runtimes.get(config.agents[0]!.id)!;
    this.#reportSandboxes(config.agents);
  }

  /** Every start: loudly for each command tool running unconfined, once for what confines the others. */
  #reportSandboxes(agents: AgentConfig[]): void {
    let sandboxed = false;
    for (const agent of agents) {
      for (const { tool, setting, sandboxed: confined } of commandToolSettings(agent.tools)) {
        sandboxed ||= confined;
        if (confined) continue;
        this.logger.warn(
          { agent: agent.id, tool, setting },
          `${setting} is off: the ${tool} tool of agent ${agent.id} runs commands UNCONFINED, with this service's user, ` +
            'files, processes and network (only the environment is filtered)',
        );
      }
    }
    const availability = sandboxed ? detectSandbox() : undefined;
    if (availability?.available) {
      const { host } = availability;
      const log = host.processLimit === 'none' || host.runsAsRoot ? this.logger.warn.bind(this.logger) : this.logger.info.bind(this.logger);
      log({ processLimit: host.processLimit, runsAsRoot: host.runsAsRoot }, `sandbox for bash and CLI tools: ${describeSandboxHost(host)}`);
    }
  }

  get defaultModel(): ChatModel {
    return this.#default.model;
  }

  /** An agent id the configuration no longer has (a message queued before a restart) falls back to the default agent. */
  runtime(agentId: string): AgentRuntime {
    const runtime = this.#runtimes.get(agentId);
    if (runtime) return runtime;
    if (!this.#warned.has(agentId)) {
      this.#warned.add(agentId);
      this.logger.warn({ agentId, fallback: this.#default.config.id }, 'unknown agent id: answering with the default agent');
    }
    return this.#default;
  }

  /** The model of the agent a session key names (`agent:<id>:…`). */
  modelForSession(sessionKey: string): ChatModel {
    return this.runtime(sessionKey.split(':')[1] ?? '').model;
  }

  /**
   * The message's agent once its MCP servers' first connection attempts are over (waited for within
   * MCP_STARTUP_WAIT_MS of the start, not after): a turn started or resumed right after a restart gets their tools.
   */
  async readyTurnAgent(message: InboundMessage, signal?: AbortSignal): Promise<TurnAgent> {
    await this.mcp?.ready(this.runtime(message.agentId).config.id, signal);
    return this.turnAgent(message);
  }

  /** The message's agent with the MCP tools connected at this moment (see `readyTurnAgent`). */
  turnAgent(message: InboundMessage): TurnAgent {
    const { config, model, modelChoices, tools } = this.runtime(message.agentId);
    const { conversation } = message;
    const chat = this.chats.resolve({
      channel: conversation.channel,
      accountId: conversation.accountId,
      chatType: conversation.chatType,
      chatId: conversation.chatId,
    });
    return {
      model,
      ...(modelChoices.size > 1 ? { modelChoices } : {}),
      modelChoice: config.modelChoice,
      tools: this.#withMcpTools(config.id, tools),
      systemPrompt: config.systemPrompt,
      maxIterations: config.maxIterations,
      liveReplies: chat.streaming,
      chatPrompt: chat.systemPrompt,
      requireApproval: config.toolPolicy.requireApproval ?? [],
      scheduledAllowTools: config.schedules.allowTools,
      subagents: config.subagents,
      toolNotice: this.#toolNotice(config.id),
    };
  }

  /** The error for a call to an MCP tool whose server is not connected (instead of "Unknown tool"). */
  missingTool(toolName: string, agentId: string | undefined): string | undefined {
    if (!this.mcp) return undefined;
    return this.mcp.missingTool(this.runtime(agentId ?? '').config.id, toolName);
  }

  #toolNotice(agentId: string): string | undefined {
    const unavailable = this.mcp?.unavailable(agentId) ?? [];
    return unavailable.length === 0 ? undefined : unavailableServersLine(unavailable);
  }

  get agentNames(): string[] {
    return [...this.#runtimes.keys()];
  }

  /** What a sub-agent runs as: the named agent (none such: undefined), or without a name the calling agent. */
  async subagentSetup(name: string | undefined, callingAgentId: string): Promise<SubagentSetup | undefined> {
    const runtime = name === undefined ? this.runtime(callingAgentId) : this.#runtimes.get(name);
    if (!runtime) return undefined;
    const { config } = runtime;
    await this.mcp?.ready(config.id);
    return {
      id: config.id,
      model: runtime.model,
      tools: this.#withMcpTools(config.id, runtime.tools),
      identity: config.systemPrompt,
      maxIterations: config.maxIterations,
      requireApproval: config.toolPolicy.requireApproval ?? [],
    };
  }

  /** The agent's own tools, then its MCP tools as they are now; an MCP tool never shadows a built-in one. */
  #withMcpTools(agentId: string, tools: AgentTool[]): AgentTool[] {
    const mcpTools = this.mcp?.toolsFor(agentId) ?? [];
    if (mcpTools.length === 0) return tools;
    const names = new Set(tools.map((tool) => tool.name));
    const added = mcpTools.filter((tool) => {
      if (!names.has(tool.name)) return true;
      if (!this.#collisions.has(tool.name)) {
        this.#collisions.add(tool.name);
        this.logger.warn({ agentId, tool: tool.name }, 'MCP tool skipped: an agent tool has the same name');
      }
      return false;
    });
    return [...tools, ...added];
  }
}

/**
 * The agent's choosable models by `provider:model`. A chosen model keeps the agent's failover chain: its calls go to
 * the agent's fallbacks (itself left out) as the agent's own model's do.
 */
function modelChoicesOf(agent: AgentConfig, model: ChatModel, failover: FailoverOptions | undefined): ReadonlyMap<string, ChatModel> {
  const choices = new Map<string, ChatModel>([[modelChoiceKey(agent.llm), model]]);
  for (const choice of agent.models) {
    const key = modelChoiceKey(choice);
    choices.set(key, createModelChain(choice, agent.fallbackModels.filter((fallback) => modelChoiceKey(fallback) !== key), failover));
  }
  return choices;
}

function modelChoiceKey(llm: { provider: string; model: string }): string {
  return `${llm.provider}:${llm.model}`;
}

/** A command tool whose sandbox cannot run stops start-up, naming the agent. */
function toolsOf(agent: AgentConfig): AgentTool[] {
  try {
    return defaultTools({ ...agent.tools, allow_admin_tools: agent.toolPolicy.allowAdminTools });
  } catch (error) {
    if (error instanceof BotError && error.code === 'config') throw new BotError('config', `agent ${agent.id}: ${error.message}`, { cause: error });
    throw error;
  }
}
