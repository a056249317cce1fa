import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, PaginatedResultSchema, ResultSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool } from '../agent/tools/agent-tool.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { SchemaCompiler } from './argument-validator.js';
import { failureKind, McpUnavailableError, plainMessage } from './call-errors.js';
import { withDeadline } from './deadline.js';
import type { McpServerConfig } from './mcp-config.js';
import { createMcpTool, type McpToolCaller } from './mcp-tool.js';
import { openClient, type TransportKind } from './open-client.js';
import { StderrLog } from './stderr-log.js';
import { selectTools, type SkippedTool } from './tool-selection.js';

export type ConnectionState = 'idle' | 'connecting' | 'up' | 'down' | 'closed';

export interface McpConnectionOptions {
  logger: Logger;
  metrics?: Metrics | undefined;
  /** Starting the server, `initialize` and the first tool listing (default 15 s); longer: down, retried. */
  connectTimeoutMs?: number | undefined;
  /** Delay before reconnecting: `initialMs` doubling up to `maxMs` (default 1 s to 60 s). */
  backoff?: { initialMs: number; maxMs: number } | undefined;
  /** A connection up this long before it failed retries from `initialMs` again (default 30 s). */
  stableMs?: number | undefined;
  /** Liveness ping (default every 30 s; 0: off). Two unanswered pings, or one that cannot be sent, restart the connection. */
  pingIntervalMs?: number | undefined;
  clock?: () => number;
}

const CLIENT_INFO = { name: 'chatbot-service', version: '0.1.0' };
const MAX_LIST_PAGES = 20;
const MAX_PROTOCOL_ERRORS_LOGGED = 20;

/**
 * One MCP server for one worker process: connects in the background, offers the server's tools
 * only while it is connected, reconnects with backoff when it dies, hangs or cannot be reached,
 * and refreshes the tools on `notifications/tools/list_changed`. Nothing here ever blocks a turn:
 * `tools()` is a snapshot, and a call to a server that is down fails at once.
 */
export class McpConnection implements McpToolCaller {
  #state: ConnectionState = 'idle';
  #client: Client | undefined;
  #kind: TransportKind | undefined;
  #tools: AgentTool[] = [];
  #skipped: SkippedTool[] = [];
  #reported = new Set<string>();
  /** Bumped whenever the current client is given up; callbacks of older clients are ignored. */
  #generation = 0;
  #attempt = 0;
  #upSince = 0;
  #lastError: string | undefined;
  /** The last failure without the server's stderr: what the model is told. */
  #lastReason: string | undefined;
  /** Clients of the attempt in progress, closed at once by `close()`. */
  #opening: Client[] = [];
  #failingSince: number | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  #pingFailures = 0;
  #pingInFlight = false;
  #refresh: Promise<void> | undefined;
  #refreshGeneration = 0;
  #refreshAgain = false;
  #protocolErrors = 0;
  #settledWaiters: Array<(state: ConnectionState) => void> = [];
  readonly #stderr: StderrLog;
  readonly #connectTimeoutMs: number;
  readonly #backoff: { initialMs: number; maxMs: number };
  readonly #stableMs: number;
  readonly #pingIntervalMs: number;
  readonly #clock: () => number;
  readonly #logger: Logger;

  constructor(
    readonly server: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date.now;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.#backoff = options.backoff ?? { initialMs: 1_000, maxMs: 60_000 };
    this.#stableMs = options.stableMs ?? 30_000;
    this.#pingIntervalMs = options.pingIntervalMs ?? 30_000;
    this.#stderr = new StderrLog(this.#logger, this.#clock);
    options.metrics?.mcpServerUp.set({ server: server.name }, 0);
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get transportKind(): TransportKind | undefined {
    return this.#kind;
  }

  /** Why the server is not connected (the last failure), if it is not. */
  get lastError(): string | undefined {
    return this.#state === 'up' ? undefined : this.#lastError;
  }

  /** The tools the model may call now: none while the server is down. */
  tools(): AgentTool[] {
    return this.#state === 'up' ? this.#tools : [];
  }

  /** Tools of the current listing that cannot be offered, with the reason. */
  skipped(): SkippedTool[] {
    return [...this.#skipped];
  }

  /** Connects in the background; never throws, never waits. */
  start(): void {
    if (this.#state !== 'idle') return;
    void this.#connect();
  }

  /** Resolves when no attempt is in progress: with `up`, `down` (after a failure) or `closed`. */
  settled(): Promise<ConnectionState> {
    if (this.#state !== 'connecting' && this.#state !== 'idle') return Promise.resolve(this.#state);
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  async callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> {
    const client = this.#client;
    if (this.#state !== 'up' || !client) throw new McpUnavailableError(this.server.name, this.#lastReason);
    const generation = this.#generation;
    try {
      // parsed with CallToolResultSchema: never the legacy `toolResult` shape the return type also allows
      return (await client.callTool({ name, arguments: args }, CallToolResultSchema, { signal: options.signal, timeout: options.timeoutMs })) as CallToolResult;
    } catch (error) {
      if (!options.signal.aborted && failureKind(error) === 'transport') this.#lost(generation, `a tool call could not be delivered: ${plainMessage(error)}`);
      throw error;
    }
  }

  /** Stops reconnecting and closes the client (a stdio child gets EOF, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#generation += 1;
    this.#setState('closed');
    clearTimeout(this.#retryTimer);
    this.#stopPing();
    const clients = [...this.#opening, ...(this.#client ? [this.#client] : [])];
    this.#client = undefined;
    this.#opening = [];
    this.#tools = [];
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  }

  #setState(state: ConnectionState): void {
    this.#state = state;
    this.options.metrics?.mcpServerUp.set({ server: this.server.name }, state === 'up' ? 1 : 0);
    if (state !== 'connecting' && state !== 'idle') {
      for (const resolve of this.#settledWaiters.splice(0)) resolve(state);
    }
  }

  #createClient(generation: number): Client {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.onerror = (error) => this.#protocolError(generation, error);
    client.onclose = () => this.#lost(generation, 'the server closed the connection (it exited or crashed)');
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => this.#toolsChanged(generation));
    return client;
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    this.#setState('connecting');
    this.#stderr.clearTail();
    this.#refreshAgain = false;
    const clients: Client[] = [];
    this.#opening = clients;
    try {
      const seconds = Math.round(this.#connectTimeoutMs / 1000);
      const connecting = (async () => {
        const opened = await openClient(this.server, {
          createClient: () => {
            const client = this.#createClient(generation);
            clients.push(client);
            return client;
          },
          timeoutMs: this.#connectTimeoutMs,
          onStderr: (stream) => this.#stderr.attach(stream),
        });
        return { ...opened, listing: await this.#listTools(opened.client) };
      })();
      const { client, kind, listing } = await withDeadline(connecting, this.#connectTimeoutMs, `did not start and answer initialize and tools/list within ${seconds} s`);
      this.#opening = [];
      if (generation !== this.#generation) {
        await client.close().catch(() => {});
        return;
      }
      // it may have died after answering: its close was ignored while connecting
      if (!client.transport) throw new Error('the server closed the connection right after answering tools/list');
      this.#client = client;
      this.#kind = kind;
      this.#reported.clear();
      this.#protocolErrors = 0;
      this.#applyListing(listing);
      this.#upSince = this.#clock();
      this.#setState('up');
      const downFor = this.#failingSince === undefined ? undefined : this.#clock() - this.#failingSince;
      this.#failingSince = undefined;
      this.#logger.info({ transport: kind, tools: this.#tools.length, ...(downFor === undefined ? {} : { downForMs: downFor }) }, 'MCP server connected');
      this.#startPing(generation);
      if (this.#refreshAgain) this.#toolsChanged(generation);
    } catch (error) {
      for (const client of clients) void client.close().catch(() => {});
      if (generation !== this.#generation) return;
      this.#opening = [];
      this.#fail('connect', `could not connect: ${plainMessage(error)}`);
    }
  }

  async #listTools(client: Client): Promise<unknown[]> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, PaginatedResultSchema, {
        timeout: this.#connectTimeoutMs,
      });
      const listed = (result as { tools?: unknown }).tools;
      if (!Array.isArray(listed)) throw new Error('tools/list answered without a tools array');
      tools.push(...listed);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  #applyListing(listing: unknown[]): void {
    const selection = selectTools(this.server, listing, new SchemaCompiler());
    for (const skipped of selection.skipped) {
      const key = `${skipped.name}\u0000${skipped.reason}`;
      if (this.#reported.has(key)) continue;
      this.#reported.add(key);
      this.#logger.warn({ tool: skipped.name, reason: skipped.reason }, `MCP tool skipped: ${this.server.name} / ${skipped.name}: ${skipped.reason}`);
    }
    if (selection.filteredOut.length > 0) this.#logger.debug({ tools: selection.filteredOut }, 'MCP tools left out by tools.allow / tools.deny');
    this.#skipped = selection.skipped;
    this.#tools = selection.selected.map((tool) => createMcpTool(this.server, tool, this, this.options.metrics));
  }

  /** `notifications/tools/list_changed`: list again (one listing at a time; a change during one lists once more). */
  #toolsChanged(generation: number): void {
    if (generation !== this.#generation) return;
    this.#refreshAgain = true;
    if (this.#state !== 'up' || (this.#refresh && this.#refreshGeneration === generation)) return;
    this.#refreshGeneration = generation;
    const refresh = (async () => {
      while (this.#refreshAgain && generation === this.#generation && this.#client) {
        this.#refreshAgain = false;
        try {
          const listing = await this.#listTools(this.#client);
          if (generation === this.#generation) this.#applyListing(listing);
        } catch (error) {
          if (generation !== this.#generation) return;
          this.options.metrics?.mcpErrors.inc({ server: this.server.name, kind: 'list' });
          this.#logger.warn({ err: error }, 'MCP server: listing the tools again failed; keeping the previous list');
          if (failureKind(error) === 'transport') this.#lost(generation, `tools/list could not be delivered: ${plainMessage(error)}`);
          return;
        }
      }
    })().finally(() => {
      if (this.#refresh === refresh) this.#refresh = undefined;
    });
    this.#refresh = refresh;
  }

  #protocolError(generation: number, error: Error): void {
    if (generation !== this.#generation) return;
    this.options.metrics?.mcpErrors.inc({ server: this.server.name, kind: 'protocol' });
    this.#protocolErrors += 1;
    if (this.#protocolErrors <= MAX_PROTOCOL_ERRORS_LOGGED) {
      this.#logger.warn({ err: error }, `MCP server sent something that is not valid JSON-RPC: ${plainMessage(error).slice(0, 300)}`);
    } else if (this.#protocolErrors === MAX_PROTOCOL_ERRORS_LOGGED + 1) {
      this.#logger.warn('MCP server: further protocol errors of this connection are not logged');
    }
  }

  /** The connection of `generation` is gone or unusable: drop it and reconnect. */
  #lost(generation: number, reason: string): void {
    if (generation !== this.#generation || this.#state !== 'up') return;
    if (this.#clock() - this.#upSince >= this.#stableMs) this.#attempt = 0;
    this.#fail('disconnect', reason);
  }

  #fail(kind: 'connect' | 'disconnect' | 'unresponsive', reason: string): void {
    this.#generation += 1;
    this.#stopPing();
    const client = this.#client;
    this.#client = undefined;
    this.#tools = [];
    void client?.close().catch(() => {});
    const stderr = this.#stderr.tail().slice(-3);
    this.#lastReason = reason;
    this.#lastError = stderr.length > 0 ? `${reason}; stderr: ${stderr.join(' | ')}` : reason;
    this.options.metrics?.mcpErrors.inc({ server: this.server.name, kind });
    const delayMs = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** this.#attempt);
    this.#attempt += 1;
    const firstFailure = this.#failingSince === undefined;
    this.#failingSince ??= this.#clock();
    const fields = { reason, stderr, retryInMs: delayMs, attempt: this.#attempt };
    // the first failure of a streak is a warning; the retries that follow are not news
    if (firstFailure) this.#logger.warn(fields, `MCP server down: ${reason}; its tools are unavailable until it reconnects`);
    else this.#logger.debug(fields, 'MCP server still down');
    this.#setState('down');
    this.#retryTimer = setTimeout(() => {
      if (this.#state === 'down') void this.#connect();
    }, delayMs);
    this.#retryTimer.unref();
  }

  #startPing(generation: number): void {
    if (this.#pingIntervalMs <= 0) return;
    this.#pingFailures = 0;
    this.#pingTimer = setInterval(() => void this.#ping(generation), this.#pingIntervalMs);
    this.#pingTimer.unref();
  }

  #stopPing(): void {
    clearInterval(this.#pingTimer);
    this.#pingTimer = undefined;
    this.#pingInFlight = false;
  }

  async #ping(generation: number): Promise<void> {
    const client = this.#client;
    if (!client || this.#pingInFlight || generation !== this.#generation) return;
    this.#pingInFlight = true;
    try {
      await client.request({ method: 'ping' }, ResultSchema, { timeout: Math.min(this.#pingIntervalMs, 10_000) });
      this.#pingFailures = 0;
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#pingFailures += 1;
      if (failureKind(error) === 'transport' || this.#pingFailures >= 2) {
        if (this.#clock() - this.#upSince >= this.#stableMs) this.#attempt = 0;
        if (this.#state === 'up') this.#fail('unresponsive', `no answer to ping: ${plainMessage(error)}`);
      }
    } finally {
      if (generation === this.#generation) this.#pingInFlight = false;
    }
  }
}
