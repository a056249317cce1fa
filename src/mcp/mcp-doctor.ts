import { createLogger } from '../observability/logger.js';
import type { McpServerConfig } from './mcp-config.js';
import type { McpAgent } from './mcp-manager.js';

/** The shape of a `doctor` check: one line, ok with what was found, or FAIL with what went wrong and a hint. */
export interface McpDoctorCheck {
  name: string;
  run: () => Promise<string>;
  hint: string;
}

function hintFor(server: McpServerConfig): string {
  return server.transport === 'stdio'
    ? 'check command, args, env and cwd (the program must speak MCP on stdin/stdout)'
    : 'check url and headers, and that the server is running';
}

async function probe(server: McpServerConfig): Promise<string> {
  // the MCP SDK loads only when a server is configured
  const { McpConnection } = await import('./mcp-connection.js');
  const connection = new McpConnection(server, { logger: createLogger({ level: 'silent' }), pingIntervalMs: 0 });
  connection.start();
  try {
    if ((await connection.settled()) !== 'up') throw new Error(connection.lastError ?? 'not connected');
    const names = connection.tools().map((tool) => tool.name);
    const skipped = connection.skipped().map((tool) => `${tool.name} (${tool.reason})`);
    return [
      `${connection.transportKind}, ${names.length} tool(s)${names.length ? `: ${names.join(', ')}` : ''}`,
      ...(skipped.length ? [`skipped: ${skipped.join('; ')}`] : []),
    ].join('; ');
  } finally {
    await connection.close();
  }
}

/** One check per configured MCP server (shared servers once): connects, lists its tools, disconnects. */
export function mcpDoctorChecks(agents: McpAgent[]): McpDoctorCheck[] {
  const seen = new Set<string>();
  const checks: McpDoctorCheck[] = [];
  const several = agents.filter((agent) => agent.mcpServers.length > 0).length > 1;
  for (const agent of agents) {
    for (const server of agent.mcpServers) {
      const key = JSON.stringify(server);
      if (seen.has(key)) continue;
      seen.add(key);
      checks.push({ name: several ? `mcp ${agent.id}/${server.name}` : `mcp ${server.name}`, run: () => probe(server), hint: hintFor(server) });
    }
  }
  return checks;
}
