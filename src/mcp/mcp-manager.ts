import type { AgentTool } from '../agent/tools/agent-tool.js';
import type { Logger } from '../observability/logger.js';
import type { McpServerConfig } from './mcp-config.js';
import { McpConnection, type McpConnectionOptions, type McpServerState } from './mcp-connection.js';
import { startupWait } from './startup-wait.js';

export interface McpAgent {
  id: string;
  mcpServers: McpServerConfig[];
}

/** A server of an agent whose tools a turn does not have now. */
export interface UnavailableServer {
  server: string;
  /** Why, for the model: still connecting after a start, or the last failure. */
  reason: string;
}

/** One server as the operator sees it. */
export interface McpServerStatus {
  server: string;
  state: McpServerState;
  /** Why it is down (the last failure, with the server's last stderr lines). */
  error?: string;
}

/** What the agent runtimes need: each agent's MCP tools as they are right now, and the start-up wait. */
export interface McpToolSource {
  toolsFor(agentId: string): AgentTool[];
  /**
   * Waits, within MCP_STARTUP_WAIT_MS of the start, for the first connection attempt of each server of the agent;
   * once every first attempt is over (or the wait has run out) it returns at once. Never rejects.
   */
  ready(agentId: string, signal?: AbortSignal): Promise<void>;
  /** The agent's servers that are not connected now. */
  unavailable(agentId: string): UnavailableServer[];
  /** The tool error for a call to `<server>__<tool>` of a server of the agent that is not connected; undefined otherwise. */
  missingTool(agentId: string, toolName: string): string | undefined;
}

export interface McpManagerOptions extends Omit<McpConnectionOptions, 'logger' | 'onStatusChange'> {
  logger: Logger;
  /** MCP_STARTUP_WAIT_MS: how long after `start()` turns wait for the servers' first connection attempts (default 5 s). */
  startupWaitMs?: number | undefined;
  /** After any server's status changed (connecting, connected, down). */
  onStatusChange?: (() => void) | undefined;
}

export const DEFAULT_MCP_STARTUP_WAIT_MS = 5_000;

/**
 * The MCP servers of every agent in this worker process. Agents that declare the same server
 * (same name, same settings) share one connection, so one child process per server per process.
 */
export class McpManager implements McpToolSource {
  readonly #connections = new Map<string, McpConnection>();
  readonly #byAgent = new Map<string, McpConnection[]>();
  readonly #startupWaitMs: number;
  readonly #clock: () => number;
  /** When turns stop waiting for first attempts (set by `start()`). */
  #waitUntil: number | undefined;

  constructor(agents: McpAgent[], options: McpManagerOptions) {
    const { startupWaitMs, ...connectionOptions } = options;
    this.#startupWaitMs = startupWaitMs ?? DEFAULT_MCP_STARTUP_WAIT_MS;
    this.#clock = options.clock ?? Date.now;
    for (const agent of agents) {
      const connections = agent.mcpServers.map((server) => {
        const key = JSON.stringify(server);
        let connection = this.#connections.get(key);
        if (!connection) {
          connection = new McpConnection(server, { ...connectionOptions, logger: options.logger.child({ mcpServer: server.name }) });
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

  /** Connects every server in the background; start-up (and /readyz) does not wait for any of them. */
  start(): void {
    this.#waitUntil ??= this.#clock() + this.#startupWaitMs;
    for (const connection of this.#connections.values()) connection.start();
  }

  toolsFor(agentId: string): AgentTool[] {
    return this.#of(agentId).flatMap((connection) => connection.tools());
  }

  ready(agentId: string, signal?: AbortSignal): Promise<void> {
    const pending = this.#of(agentId).filter((connection) => !connection.firstAttemptOver);
    // not started (nothing to wait for) or past the start-up: no turn waits
    if (pending.length === 0 || this.#waitUntil === undefined) return Promise.resolve();
    const remainingMs = this.#waitUntil - this.#clock();
    if (remainingMs <= 0) return Promise.resolve();
    return startupWait(
      pending.map((connection) => connection.firstAttempt()),
      remainingMs,
      signal,
    );
  }

  unavailable(agentId: string): UnavailableServer[] {
    return this.#of(agentId).flatMap((connection) => {
      const reason = connection.unavailableReason();
      return reason === undefined ? [] : [{ server: connection.server.name, reason }];
    });
  }

  missingTool(agentId: string, toolName: string): string | undefined {
    const connection = this.#of(agentId).find((candidate) => toolName.startsWith(`${candidate.server.name}__`));
    const reason = connection?.unavailableReason();
    if (!connection || reason === undefined) return undefined;
    return `Error: MCP server '${connection.server.name}' is unavailable (${reason}), so ${toolName} was not run. Its tools are back once it connects.`;
  }

  /** Every server of this process, in configuration order. */
  statuses(): McpServerStatus[] {
    return this.connections().map((connection) => ({ server: connection.server.name, ...connection.status() }));
  }

  connections(): McpConnection[] {
    return [...this.#connections.values()];
  }

  /** Closes every connection (stdio children are stopped). */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }

  #of(agentId: string): McpConnection[] {
    return this.#byAgent.get(agentId) ?? [];
  }
}
