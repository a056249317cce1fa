import type { FastifyInstance } from 'fastify';
import { denyAsOperator } from '../approvals/index.js';
import { PairingService } from '../access/index.js';
import { BudgetsOverview } from '../budgets/index.js';
import { AdminLoginGuard, registerAdminScope } from '../gateway/index.js';
import { createServiceStatus } from '../gateway/service-status.js';
import { moduleLogger } from '../observability/logger.js';
import { McpStatusBoard, RedisLoginFailures } from '../redis/index.js';
import { recentRunCount, recentRuns } from '../store/index.js';
import type { Gateway } from './gateway-role.js';
import type { Infrastructure } from './infrastructure.js';
import type { SharedServices } from './shared-services.js';

/** The operator console and the queue dashboard under /admin (ADMIN_USER / ADMIN_PASSWORD), loaded only when on. */
export async function mountAdmin(server: FastifyInstance, infra: Infrastructure, shared: SharedServices, gateway: Gateway): Promise<void> {
  const { config, redis, keys, database, metrics } = infra;
  const admin = config.admin;
  if (!admin) return;
  const [{ mountQueueDashboard }, { mountConsole }, { TurnsBoardAdapter, RECENT_COUNT_CAP }] = await Promise.all([
    import('../gateway/admin-dashboard.js'),
    import('../gateway/console/index.js'),
    import('../gateway/turns-board-adapter.js'),
  ]);
  // wrong passwords are counted per client address in Redis, across every gateway process
  const loginGuard = new AdminLoginGuard({ store: new RedisLoginFailures(redis, keys), logger: moduleLogger('admin'), metrics });
  const { approvals, inbound, scheduleQueue, schedules, channels, sessions, roster, queueReader, deadLetters, turnsPause } = shared;
  // the workers hold the MCP connections; a gateway shows what the workers beating now last reported
  const mcpBoard = config.agents.some((agent) => agent.mcpServers.length > 0) ? new McpStatusBoard(redis, keys, moduleLogger('mcp')) : undefined;
  const turns = new TurnsBoardAdapter({
    reader: queueReader,
    deadLetters,
    pause: turnsPause,
    readOnly: config.adminReadOnly,
    showText: config.adminShowMessageText,
    leaseMs: config.turnLeaseMs,
    limitFor: (sessionKey) => sessions.limitFor(sessionKey),
    recent: { list: (offset, limit) => recentRuns(database.db, { offset, limit }), count: () => recentRunCount(database.db, RECENT_COUNT_CAP) },
  });
  await registerAdminScope(
    server,
    admin,
    async (scope) => {
      await mountQueueDashboard(scope, [inbound.queue, scheduleQueue.queue], { readOnly: config.adminReadOnly, credentials: admin, publicUrl: config.publicUrl, turns });
      await mountConsole(scope, {
        db: database.db,
        pairing: new PairingService(database.db, { metrics }),
        dmPolicy: config.dmPolicy,
        readOnly: config.adminReadOnly,
        credentials: admin,
        publicUrl: config.publicUrl,
        logger: moduleLogger('console'),
        budgets: new BudgetsOverview({ ledger: shared.budgetLedger, settings: shared.budgetSettings, defaults: config.budgets, agents: config.agents }),
        status: createServiceStatus({
          redis,
          keys,
          sessions,
          reader: queueReader,
          deadLetters,
          pause: turnsPause,
          queues: [inbound.queue, scheduleQueue.queue],
          channels: channels.all(),
          activity: gateway.activity,
          mcp: mcpBoard && { read: () => mcpBoard.read(roster.workers) },
        }),
        schedules,
        approvals: {
          pending: (limit) => approvals.pending(limit),
          pendingCount: () => approvals.pendingCount(),
          deny: (approvalId, operator) => denyAsOperator(gateway.approvalAnswers, approvalId, operator),
        },
      });
    },
    { loginGuard },
  );
}
