import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PaginatedResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool } from '../agent/tools/agent-tool.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { SchemaCompiler } from './argument-validator.js';
import { failureKind, plainMessage } from './call-errors.js';
import type { McpServerConfig } from './mcp-config.js';
import { createMcpTool, type McpToolCaller } from './mcp-tool.js';
import { selectTools, type SkippedTool } from './tool-selection.js';

const MAX_LIST_PAGES = 20;

/** The connection a refresh lists through, as long as it is the current one. */
export interface CatalogConnection {
  isCurrent(): boolean;
  isUp(): boolean;
  client(): Client | undefined;
  /** The listing could not be delivered: the connection is gone. */
  lost(reason: string): void;
}

export interface ToolCatalogOptions {
  logger: Logger;
  metrics?: Metrics | undefined;
  listTimeoutMs: number;
}

/**
 * One server's tools: `tools/list` page by page, selected by the server's allow/deny lists (a tool that cannot
 * be offered is logged once per connection), and listed again on `notifications/tools/list_changed`.
 */
export class ToolCatalog {
  #tools: AgentTool[] = [];
  #skipped: SkippedTool[] = [];
  #reported = new Set<string>();
  #refresh: Promise<void> | undefined;
  #refreshOf: number | undefined;
  /** A change was announced that no listing has caught up with yet. */
  #changed = false;

  constructor(
    private readonly server: McpServerConfig,
    private readonly caller: McpToolCaller,
    private readonly options: ToolCatalogOptions,
  ) {}

  get tools(): AgentTool[] {
    return this.#tools;
  }

  get skipped(): SkippedTool[] {
    return [...this.#skipped];
  }

  /** A change came while connecting: the fresh connection lists again once it is up. */
  get changePending(): boolean {
    return this.#changed;
  }

  /** Every page of `tools/list` (at most 20). */
  async list(client: Client): Promise<unknown[]> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, PaginatedResultSchema, {
        timeout: this.options.listTimeoutMs,
      });
      const listed = (result as { tools?: unknown }).tools;
      if (!Array.isArray(listed)) throw new Error('tools/list answered without a tools array');
      tools.push(...listed);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** A connection attempt begins: changes announced before it are covered by its first listing. */
  connecting(): void {
    this.#changed = false;
  }

  /** The first listing of a new connection (its skipped tools are reported again). */
  connected(listing: unknown[]): void {
    this.#reported.clear();
    this.#apply(listing);
  }

  /** The connection is gone: no tools until the next one lists them. */
  drop(): void {
    this.#tools = [];
  }

  /** `notifications/tools/list_changed`: list again (one listing at a time; a change during one lists once more). */
  changed(generation: number, connection: CatalogConnection): void {
    this.#changed = true;
    if (!connection.isUp() || (this.#refresh && this.#refreshOf === generation)) return;
    this.#refreshOf = generation;
    const refresh = (async () => {
      while (this.#changed && connection.isCurrent() && connection.client()) {
        this.#changed = false;
        try {
          const listing = await this.list(connection.client()!);
          if (connection.isCurrent()) this.#apply(listing);
        } catch (error) {
          if (!connection.isCurrent()) return;
          this.options.metrics?.mcpErrors.inc({ server: this.server.name, kind: 'list' });
          this.options.logger.warn({ err: error }, 'MCP server: listing the tools again failed; keeping the previous list');
          if (failureKind(error) === 'transport') connection.lost(`tools/list could not be delivered: ${plainMessage(error)}`);
          return;
        }
      }
    })().finally(() => {
      if (this.#refresh === refresh) this.#refresh = undefined;
    });
    this.#refresh = refresh;
  }

  #apply(listing: unknown[]): void {
    const selection = selectTools(this.server, listing, new SchemaCompiler());
    for (const skipped of selection.skipped) {
      const key = `${skipped.name}\u0000${skipped.reason}`;
      if (this.#reported.has(key)) continue;
      this.#reported.add(key);
      this.options.logger.warn({ tool: skipped.name, reason: skipped.reason }, `MCP tool skipped: ${this.server.name} / ${skipped.name}: ${skipped.reason}`);
    }
    this.#reportUnknownReadOnly(listing);
    if (selection.filteredOut.length > 0) this.options.logger.debug({ tools: selection.filteredOut }, 'MCP tools left out by tools.allow / tools.deny');
    this.#skipped = selection.skipped;
    this.#tools = selection.selected.map((tool) => createMcpTool(this.server, tool, this.caller, this.options.metrics));
  }

  /** A `readOnlyTools` name the server does not list is most likely a typo: said once per connection. */
  #reportUnknownReadOnly(listing: unknown[]): void {
    const listed = new Set(listing.map((raw) => (typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined)));
    for (const name of this.server.readOnlyTools) {
      const key = `readOnlyTools\u0000${name}`;
      if (listed.has(name) || this.#reported.has(key)) continue;
      this.#reported.add(key);
      this.options.logger.warn({ tool: name }, `MCP server ${this.server.name}: readOnlyTools names ${JSON.stringify(name)}, which the server does not list`);
    }
  }
}
