import { describe, expect, it } from 'vitest';
import { mcpStatusLine } from '../../src/commands/mcp-status.js';

describe("/status's MCP line", () => {
  it('names each server of the agent with its state, counts workers that disagree, and says when none reported', () => {
    const reports = [
      { worker: 'a', atMs: 0, servers: [{ server: 'search', state: 'connected' as const }, { server: 'files', state: 'down' as const, error: 'x' }] },
      { worker: 'b', atMs: 0, servers: [{ server: 'search', state: 'connected' as const }, { server: 'files', state: 'connected' as const }] },
    ];
    expect(mcpStatusLine(['search', 'files', 'crm'], reports)).toBe('MCP servers: search connected; files down on 1 of 2 workers, connected on 1 of 2 workers; crm not reported');
    expect(mcpStatusLine([], reports)).toBeUndefined();
  });
});
