import type { AgentTool } from '../agent/tools/agent-tool.js';
import type { Logger } from '../observability/logger.js';
import type { McpServerConfig } from './mcp-config.js';
import { McpConnection, type McpConnectionOptions } from './mcp-connection.js';

export interface McpAgent {
  id: string;
  mcpServers: McpServerConfig[];
}

/** What the agent runtimes need: each agent's MCP tools as they are right now. */
export interface McpToolSource {
  toolsFor(agentId: string): AgentTool[];
}

/**
 * The MCP servers of every agent in this worker process. Agents that declare the same server
 * (same name, same settings) share one connection, so one child process per server per process.
 */
export class McpManager implements McpToolSource {
  readonly #connections = new Map<string, McpConnection>();
  readonly #byAgent = new Map<string, McpConnection[]>();

  constructor(agents: McpAgent[], options: Omit<McpConnectionOptions, 'logger'> & { logger: Logger }) {
    for (const agent of agents) {
      const connections = agent.mcpServers.map((server) => {
        const key = JSON.stringify(server);
        let connection = this.#connections.get(key);
        if (!connection) {
          connection = new McpConnection(server, { ...options, logger: options.logger.child({ mcpServer: server.name }) });
          this.#connections.set(key, connection);
        }
        return connection;
      });
      this.#byAgent.set(agent.id, connections);
    }
  }

  get size(): number {
    return this.#connections.size;
  }

  /** Connects every server in the background; start-up does not wait for any of them. */
  start(): void {
    for (const connection of this.#connections.values()) connection.start();
  }

  toolsFor(agentId: string): AgentTool[] {
    return (this.#byAgent.get(agentId) ?? []).flatMap((connection) => connection.tools());
  }

  connections(): McpConnection[] {
    return [...this.#connections.values()];
  }

  /** Closes every connection (stdio children are stopped). */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }
}
