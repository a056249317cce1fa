import type { OverviewData } from './overview-data.js';

/** The home page's figures as JSON (`GET /admin/api/overview`); a part that could not be read is `null`. */
export function overviewJson(data: OverviewData) {
  const { runs } = data;
  return {
    now: data.now.toISOString(),
    day: data.day,
    today: runs?.today ?? null,
    lastHour: runs?.lastHour ?? null,
    failures:
      runs?.failures.map((failure) => ({
        runId: failure.runId,
        sessionKey: failure.sessionKey,
        startedAt: failure.startedAt.toISOString(),
        error: failure.error,
      })) ?? null,
    budgets: data.budgets ?? null,
    queues: data.queues ?? null,
    connections:
      data.connections?.map((connection) => ({
        channel: connection.channel,
        accountId: connection.accountId,
        transport: connection.transport,
        holder: connection.holder?.holder ?? null,
        leaseExpiresInMs: connection.holder?.expiresInMs ?? null,
        lastUpdateAt: connection.lastUpdateAt?.toISOString() ?? null,
      })) ?? null,
    pendingApprovals: data.pendingApprovals ?? null,
    // one row per worker and server: connecting (its first attempt since the worker started), connected or down
    mcpServers:
      data.mcpServers?.flatMap((report) =>
        report.servers.map((server) => ({ worker: report.worker, server: server.server, state: server.state, error: server.error ?? null })),
      ) ?? null,
    unavailable: data.unavailable,
  };
}
