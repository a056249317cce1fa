import type { BudgetLimits } from '../../../budgets/index.js';
import type { Logger } from '../../../observability/logger.js';
import { runsOverview, type RunsOverview } from '../../../store/index.js';
import type { WorkerMcpReport } from '../../../redis/mcp-status-board.js';
import type { ChannelConnection, QueueState } from '../../service-status.js';
import type { ConsoleDependencies } from '../console-section.js';

export interface AgentSpend {
  id: string;
  spentUsd: number;
  limitUsd: number | undefined;
}

/** What the home page shows; a part that could not be read is absent and named in `unavailable`. */
export interface OverviewData {
  now: Date;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  runs?: RunsOverview;
  budgets?: { defaults: BudgetLimits; agents: AgentSpend[] };
  queues?: QueueState[];
  connections?: ChannelConnection[];
  /** Each worker's MCP servers; absent: none configured (`unavailable` says so only when reading failed). */
  mcpServers?: WorkerMcpReport[];
  pendingApprovals?: number;
  /** Parts left out: `failed` to read now (Redis or PostgreSQL away: see the log), or `absent` from this process. */
  unavailable: Record<string, 'failed' | 'absent'>;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Everything the home page shows, read in parallel from what the service keeps anyway: two statements over
 * `runs`, the agents' budget keys (no scan), BullMQ's job counts, the connection leases and the channels'
 * last-update hash, the pending-approvals index. A part that fails is left out, not the page.
 */
export async function overviewData(deps: ConsoleDependencies, now: Date, logger: Logger): Promise<OverviewData> {
  const dayFrom = new Date(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`);
  const unavailable: Record<string, 'failed' | 'absent'> = {};
  const part = async <T>(name: string, read: (() => Promise<T>) | undefined): Promise<T | undefined> => {
    if (!read) {
      unavailable[name] = 'absent';
      return undefined;
    }
    try {
      return await read();
    } catch (error) {
      logger.warn({ err: error, part: name }, 'console home page: a part could not be read');
      unavailable[name] = 'failed';
      return undefined;
    }
  };
  const { budgets, status, approvals } = deps;
  const [runs, budgetState, queues, connections, pendingApprovals, mcpServers] = await Promise.all([
    part('turns', () => runsOverview(deps.db, { hourFrom: new Date(now.getTime() - HOUR_MS), dayFrom })),
    part(
      'budgets',
      budgets &&
        (async () => {
          const [limits, today] = await Promise.all([budgets.limits(), budgets.agentsToday()]);
          return { defaults: limits.effective, agents: today.agents };
        }),
    ),
    part('queues', status && (() => status.queues())),
    part('channel connections', status && (() => status.connections())),
    part('approval requests', approvals && (() => approvals.pendingCount())),
    status?.mcpServers ? part('mcp servers', status.mcpServers) : Promise.resolve(undefined),
  ]);
  return {
    now,
    day: dayFrom.toISOString().slice(0, 10),
    ...(runs ? { runs } : {}),
    ...(budgetState ? { budgets: budgetState } : {}),
    ...(queues ? { queues } : {}),
    ...(connections ? { connections } : {}),
    ...(pendingApprovals !== undefined ? { pendingApprovals } : {}),
    ...(mcpServers ? { mcpServers } : {}),
    unavailable,
  };
}
