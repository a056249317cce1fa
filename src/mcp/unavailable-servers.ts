import type { UnavailableServer } from './mcp-manager.js';

const MAX_REASON_CHARS = 160;

/** The one line a turn's system prompt gets when servers of its agent are not connected: which, and why. */
export function unavailableServersLine(servers: UnavailableServer[]): string {
  const listed = servers.map(({ server, reason }) => `${server} (${reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason})`);
  return `Unavailable right now: the tools of MCP server${servers.length > 1 ? 's' : ''} ${listed.join(', ')}. If the user needs them, say so rather than guessing.`;
}
