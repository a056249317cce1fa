import { afterEach, describe, expect, it } from 'vitest';
import { McpManager } from '../../src/mcp/mcp-manager.js';
import type { McpServerConfig } from '../../src/mcp/mcp-config.js';
import { captureLog, FAST, fixtureServer } from './support/mcp-servers.js';

/** CONTRACT §11b: turns wait for the first connection attempts of their agent's servers, within MCP_STARTUP_WAIT_MS of the start. */
let manager: McpManager | undefined;

afterEach(async () => {
  await manager?.close();
  manager = undefined;
});

function managerOf(servers: McpServerConfig[], startupWaitMs: number, clock?: () => number): McpManager {
  manager = new McpManager([{ id: 'main', mcpServers: servers }, { id: 'plain', mcpServers: [] }], {
    ...FAST,
    logger: captureLog().logger,
    startupWaitMs,
    ...(clock ? { clock } : {}),
  });
  return manager;
}

const names = (agentId: string) => manager!.toolsFor(agentId).map((tool) => tool.name);

describe('the MCP start-up wait', () => {
  it('a turn asking right after the start gets the tools of a server slow to start', async () => {
    const mcp = managerOf([fixtureServer('late', { FIXTURE_START_DELAY_MS: '1500' }, { tools: { allow: ['echo'] } })], 60_000);
    mcp.start();
    expect(names('main')).toEqual([]);
    expect(mcp.unavailable('main')).toEqual([{ server: 'late', reason: 'it is still connecting after a restart' }]);
    expect(mcp.statuses()).toEqual([{ server: 'late', state: 'connecting' }]);
    await mcp.ready('main');
    expect(names('main')).toEqual(['late__echo']);
    expect(mcp.unavailable('main')).toEqual([]);
    expect(mcp.statuses()).toEqual([{ server: 'late', state: 'connected' }]);
    // an agent without servers never waits
    await mcp.ready('plain');
  }, 30_000);

  it('is bounded by the setting: a server that hangs is still connecting when the turn goes on, and its tools say so', async () => {
    const mcp = managerOf([fixtureServer('stuck', { FIXTURE_MODE: 'hang-at-initialize' })], 300);
    mcp.start();
    await mcp.ready('main');
    // the connect timeout is 10 s: the turn did not wait for the attempt to end
    expect(mcp.statuses()).toEqual([{ server: 'stuck', state: 'connecting' }]);
    expect(mcp.missingTool('main', 'stuck__echo')).toBe("Error: MCP server 'stuck' is unavailable (it is still connecting after a restart), so stuck__echo was not run. Its tools are back once it connects.");
    // not a tool of one of the agent's servers: no opinion (the loop says "Unknown tool")
    expect(mcp.missingTool('main', 'other__echo')).toBeUndefined();
    expect(mcp.missingTool('plain', 'stuck__echo')).toBeUndefined();
  }, 30_000);

  it('past the wait nobody waits; a stopped turn stops waiting; a server that failed is named down with its reason', async () => {
    let now = 1_000_000;
    const mcp = managerOf([fixtureServer('stuck', { FIXTURE_MODE: 'hang-at-initialize' }), fixtureServer('gone', { FIXTURE_MODE: 'exit-at-start' })], 60_000, () => now);
    mcp.start();
    const never = new Promise<'waited'>(() => {});
    const stopped = new AbortController();
    stopped.abort();
    expect(await Promise.race([mcp.ready('main', stopped.signal).then(() => 'returned'), never])).toBe('returned');
    now += 60_001;
    expect(await Promise.race([mcp.ready('main').then(() => 'returned'), never])).toBe('returned');

    await manager!.connections()[1]!.firstAttempt();
    const gone = mcp.statuses().find((status) => status.server === 'gone')!;
    expect(gone.state).toBe('down');
    expect(gone.error).toContain('cannot open the widget database');
    expect(mcp.unavailable('main').map((server) => server.server)).toEqual(['stuck', 'gone']);
    expect(mcp.missingTool('main', 'gone__echo')).toMatch(/^Error: MCP server 'gone' is unavailable \(could not connect: .*\), so gone__echo was not run\./);
  }, 30_000);
});
