import type { WorkerMcpReport } from '../redis/mcp-status-board.js';

/**
 * `/status`'s MCP line for an agent: each of its servers as the workers beating now report it (`connected`,
 * `connecting`, `down`; workers that disagree: each state with its count; none reported yet: `not reported`).
 */
export function mcpStatusLine(servers: readonly string[], reports: readonly WorkerMcpReport[]): string | undefined {
  if (servers.length === 0) return undefined;
  const parts = servers.map((server) => {
    const states = reports.flatMap((report) => report.servers.filter((entry) => entry.server === server).map((entry) => entry.state));
    if (states.length === 0) return `${server} not reported`;
    const counts = new Map<string, number>();
    for (const state of states) counts.set(state, (counts.get(state) ?? 0) + 1);
    if (counts.size === 1) return `${server} ${states[0]}`;
    return `${server} ${[...counts].map(([state, count]) => `${state} on ${count} of ${states.length} workers`).join(', ')}`;
  });
  return `MCP servers: ${parts.join('; ')}`;
}
