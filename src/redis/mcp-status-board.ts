import type { Logger } from '../observability/logger.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';

/** One MCP server of one worker as the operator sees it. */
export interface McpServerReport {
  server: string;
  state: 'connecting' | 'connected' | 'down';
  error?: string;
}

/** What one worker process last said about its MCP servers. */
export interface WorkerMcpReport {
  worker: string;
  servers: McpServerReport[];
  /** When the worker wrote it (epoch ms). */
  atMs: number;
}

/** A report of a worker no longer beating is dropped by readers once it is this old. */
const STALE_MS = 60_000;

/**
 * The MCP servers of every worker process, for the console and /admin/api/overview, which a gateway serves while
 * the connections live in the workers: `{<prefix>:workers}:mcp-status`, a hash of worker id → JSON report. A worker
 * writes its report when a server's state changes (rare: start-up, a server going down or coming back) and removes
 * it on a clean stop; a reader shows the workers beating now and deletes old reports of workers that are gone.
 */
export class McpStatusBoard {
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Writes this worker's report (in order, one HSET each; a failure is logged, the next change writes again). */
  publish(worker: string, servers: McpServerReport[]): Promise<void> {
    const report = JSON.stringify({ servers, atMs: this.clock() });
    this.#writing = this.#writing.then(() =>
      this.redis.hset(this.keys.mcpStatus, worker, report).then(
        () => undefined,
        (error: unknown) => this.logger.warn({ err: error }, 'could not publish the MCP servers’ state for the console'),
      ),
    );
    return this.#writing;
  }

  /** A clean stop: this worker's servers are no longer anyone's. */
  async remove(worker: string): Promise<void> {
    await this.#writing;
    await this.redis.hdel(this.keys.mcpStatus, worker).catch(() => undefined);
  }

  /** The reports of the workers in `alive` (sorted by worker); old reports of other workers are deleted. */
  async read(alive: readonly string[]): Promise<WorkerMcpReport[]> {
    const raw = await this.redis.hgetall(this.keys.mcpStatus);
    const now = this.clock();
    const reports: WorkerMcpReport[] = [];
    const gone: string[] = [];
    for (const [worker, text] of Object.entries(raw)) {
      let parsed: { servers?: McpServerReport[]; atMs?: number };
      try {
        parsed = JSON.parse(text) as typeof parsed;
      } catch {
        gone.push(worker);
        continue;
      }
      const atMs = Number(parsed.atMs ?? 0);
      if (alive.includes(worker)) reports.push({ worker, servers: parsed.servers ?? [], atMs });
      else if (now - atMs > STALE_MS) gone.push(worker);
    }
    if (gone.length > 0) await this.redis.hdel(this.keys.mcpStatus, ...gone).catch(() => undefined);
    return reports.sort((a, b) => a.worker.localeCompare(b.worker));
  }
}
