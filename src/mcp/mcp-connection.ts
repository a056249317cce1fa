import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool } from '../agent/tools/agent-tool.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { failureKind, McpUnavailableError, plainMessage } from './call-errors.js';
import { withDeadline } from './deadline.js';
import type { McpServerConfig } from './mcp-config.js';
import { LivenessPing } from './liveness-ping.js';
import type { McpToolCaller } from './mcp-tool.js';
import { openClient, type TransportKind } from './open-client.js';
import { ReconnectPolicy, type Backoff } from './reconnect-policy.js';
import { StderrLog } from './stderr-log.js';
import { ToolCatalog, type CatalogConnection } from './tool-catalog.js';
import type { SkippedTool } from './tool-selection.js';

export type ConnectionState = 'idle' | 'connecting' | 'up' | 'down' | 'closed';

/** What an operator is shown (/admin/api/overview, the console): the first attempt still running, up, or not up since. */
export type McpServerState = 'connecting' | 'connected' | 'down';

export interface McpConnectionOptions {
  logger: Logger;
  metrics?: Metrics | undefined;
  /** Starting the server, `initialize` and the first tool listing (default 15 s); longer: down, retried. */
  connectTimeoutMs?: number | undefined;
  /** Delay before reconnecting: `initialMs` doubling up to `maxMs` (default 1 s to 60 s). */
  backoff?: Backoff | undefined;
  /** A connection up this long before it failed retries from `initialMs` again (default 30 s). */
  stableMs?: number | undefined;
  /** Liveness ping (default every 30 s; 0: off). Two unanswered pings, or one that cannot be sent, restart the connection. */
  pingIntervalMs?: number | undefined;
  clock?: () => number;
  /** Called after every change of `status()` (the worker publishes it for the console). */
  onStatusChange?: (() => void) | undefined;
}

const CLIENT_INFO = { name: 'chatbot-service', version: '0.1.0' };
const MAX_PROTOCOL_ERRORS_LOGGED = 20;

/**
 * One MCP server for one worker process: connects in the background, offers the server's tools
 * only while it is connected, reconnects with backoff when it dies, hangs or cannot be reached,
 * and refreshes the tools on `notifications/tools/list_changed`. Nothing here blocks a turn: `tools()` is a
 * snapshot, and a call to a server that is down fails at once; only the manager's start-up wait (bounded by
 * MCP_STARTUP_WAIT_MS) awaits `firstAttempt()`.
 *
 * This class is the state machine (idle → connecting → up ⇄ down → closed, a generation per client so that
 * callbacks of a client given up are ignored); the backoff is reconnect-policy.ts, the ping liveness-ping.ts,
 * the listing and its refresh tool-catalog.ts.
 */
export class McpConnection implements McpToolCaller {
  #state: ConnectionState = 'idle';
  #client: Client | undefined;
  #kind: TransportKind | undefined;
  /** Bumped whenever the current client is given up; callbacks of older clients are ignored. */
  #generation = 0;
  #lastError: string | undefined;
  /** The last failure without the server's stderr: what the model is told. */
  #lastReason: string | undefined;
  /** Clients of the attempt in progress, closed at once by `close()`. */
  #opening: Client[] = [];
  #retryTimer: NodeJS.Timeout | undefined;
  #protocolErrors = 0;
  #settledWaiters: Array<(state: ConnectionState) => void> = [];
  #firstAttemptOver = false;
  #firstAttemptEnded!: () => void;
  readonly #firstAttempt = new Promise<void>((resolve) => (this.#firstAttemptEnded = resolve));
  readonly #stderr: StderrLog;
  readonly #connectTimeoutMs: number;
  readonly #reconnect: ReconnectPolicy;
  readonly #ping: LivenessPing;
  readonly #catalog: ToolCatalog;
  readonly #clock: () => number;
  readonly #logger: Logger;

  constructor(
    readonly server: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date.now;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.#reconnect = new ReconnectPolicy(options.backoff ?? { initialMs: 1_000, maxMs: 60_000 }, options.stableMs ?? 30_000, this.#clock);
    this.#ping = new LivenessPing(options.pingIntervalMs ?? 30_000);
    this.#catalog = new ToolCatalog(server, this, { logger: this.#logger, metrics: options.metrics, listTimeoutMs: this.#connectTimeoutMs });
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
    return this.#state === 'up' ? this.#catalog.tools : [];
  }

  /** Tools of the current listing that cannot be offered, with the reason. */
  skipped(): SkippedTool[] {
    return this.#catalog.skipped;
  }

  /** The first connection attempt ended (up, failed, or closed before it ended); reconnects do not count. */
  get firstAttemptOver(): boolean {
    return this.#firstAttemptOver;
  }

  /** Resolves when the first connection attempt has ended (see `firstAttemptOver`). */
  firstAttempt(): Promise<void> {
    return this.#firstAttempt;
  }

  /** The server as an operator sees it: `connecting` only during the first attempt; a server retrying after a failure is `down`. */
  status(): { state: McpServerState; error?: string } {
    if (this.#state === 'up') return { state: 'connected' };
    if (!this.#firstAttemptOver) return { state: 'connecting' };
    return { state: 'down', ...(this.#lastError === undefined ? {} : { error: this.#lastError }) };
  }

  /** Why the model cannot use this server now (undefined: it is up). */
  unavailableReason(): string | undefined {
    if (this.#state === 'up') return undefined;
    if (!this.#firstAttemptOver) return 'it is still connecting after a restart';
    return this.#lastReason ?? 'it is not connected';
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
    this.#ping.stop();
    const clients = [...this.#opening, ...(this.#client ? [this.#client] : [])];
    this.#client = undefined;
    this.#opening = [];
    this.#catalog.drop();
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  }

  #setState(state: ConnectionState): void {
    const before = this.status().state;
    this.#state = state;
    this.options.metrics?.mcpServerUp.set({ server: this.server.name }, state === 'up' ? 1 : 0);
    if (state !== 'connecting' && state !== 'idle') {
      if (!this.#firstAttemptOver) {
        this.#firstAttemptOver = true;
        this.#firstAttemptEnded();
      }
      for (const resolve of this.#settledWaiters.splice(0)) resolve(state);
    }
    if (state !== 'closed' && this.status().state !== before) this.options.onStatusChange?.();
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
    this.#catalog.connecting();
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
        return { ...opened, listing: await this.#catalog.list(opened.client) };
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
      this.#protocolErrors = 0;
      this.#catalog.connected(listing);
      const downFor = this.#reconnect.connected();
      this.#setState('up');
      this.#logger.info({ transport: kind, tools: this.#catalog.tools.length, ...(downFor === undefined ? {} : { downForMs: downFor }) }, 'MCP server connected');
      this.#ping.start(client, (error) => this.#unresponsive(generation, error));
      if (this.#catalog.changePending) this.#toolsChanged(generation);
    } catch (error) {
      for (const client of clients) void client.close().catch(() => {});
      if (generation !== this.#generation) return;
      this.#opening = [];
      this.#fail('connect', `could not connect: ${plainMessage(error)}`);
    }
  }

  /** `notifications/tools/list_changed` (the catalog lists again while this client is the current one). */
  #toolsChanged(generation: number): void {
    if (generation !== this.#generation) return;
    this.#catalog.changed(generation, this.#catalogConnection(generation));
  }

  #catalogConnection(generation: number): CatalogConnection {
    return {
      isCurrent: () => generation === this.#generation,
      isUp: () => this.#state === 'up',
      client: () => this.#client,
      lost: (reason) => this.#lost(generation, reason),
    };
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
    this.#reconnect.lostWhileUp();
    this.#fail('disconnect', reason);
  }

  #fail(kind: 'connect' | 'disconnect' | 'unresponsive', reason: string): void {
    this.#generation += 1;
    this.#ping.stop();
    const client = this.#client;
    this.#client = undefined;
    this.#catalog.drop();
    void client?.close().catch(() => {});
    const stderr = this.#stderr.tail().slice(-3);
    this.#lastReason = reason;
    this.#lastError = stderr.length > 0 ? `${reason}; stderr: ${stderr.join(' | ')}` : reason;
    this.options.metrics?.mcpErrors.inc({ server: this.server.name, kind });
    const { delayMs, attempt, firstFailure } = this.#reconnect.failed();
    const fields = { reason, stderr, retryInMs: delayMs, attempt };
    // the first failure of a streak is a warning; the retries that follow are not news
    if (firstFailure) this.#logger.warn(fields, `MCP server down: ${reason}; its tools are unavailable until it reconnects`);
    else this.#logger.debug(fields, 'MCP server still down');
    this.#setState('down');
    this.#retryTimer = setTimeout(() => {
      if (this.#state === 'down') void this.#connect();
    }, delayMs);
    this.#retryTimer.unref();
  }

  /** The liveness ping gave up on the client of `generation`. */
  #unresponsive(generation: number, error: unknown): void {
    if (generation !== this.#generation) return;
    this.#reconnect.lostWhileUp();
    if (this.#state === 'up') this.#fail('unresponsive', `no answer to ping: ${plainMessage(error)}`);
  }
}
