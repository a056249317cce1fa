import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/agent/tool-calls.js';
import type { AgentTool } from '../../src/agent/tools/agent-tool.js';
import { McpManager } from '../../src/mcp/mcp-manager.js';
import type { McpConnection } from '../../src/mcp/mcp-connection.js';
import { Metrics } from '../../src/observability/metrics.js';
import { agentInput, collectEvents, terminalOf, testToolContext } from '../agent/support/agent-run.js';
import { ScriptedModel } from '../agent/support/scripted-model.js';
import { echoTool } from '../agent/support/test-tools.js';
import { waitFor } from '../support/service-process.js';
import { brokenSwitch, captureLog, closeConnections, connect, FAST, fixtureServer, metricValue, waitUntilUp } from './support/mcp-servers.js';

let workspace: string;
const switches: Array<ReturnType<typeof brokenSwitch>> = [];

beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'mcp-resilience-'));
});

afterEach(async () => {
  await closeConnections();
  for (const toggle of switches.splice(0)) toggle.cleanup();
});

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

function brokenFixture(name: string, mode: string) {
  const toggle = brokenSwitch();
  switches.push(toggle);
  return { toggle, server: fixtureServer(name, { FIXTURE_MODE: mode, FIXTURE_BROKEN_FILE: toggle.file }) };
}

async function call(tools: AgentTool[], name: string, args: unknown, signal = new AbortController().signal) {
  return executeToolCall(
    { type: 'tool-call', id: `call-${name}`, name, arguments: JSON.stringify(args) },
    new Map(tools.map((tool) => [tool.name, tool])),
    testToolContext(signal, workspace),
    Date.now,
  );
}

/**
 * One turn of the agent loop with the MCP server's current tools plus a built-in tool: the model
 * calls both in one step, then answers. Returns what the model was offered and what came back.
 */
async function turnWith(connection: McpConnection, mcpCall: { name: string; args: unknown }) {
  const tools = [echoTool('local_echo'), ...connection.tools()];
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'mcp', name: mcpCall.name, args: mcpCall.args }, { id: 'local', name: 'local_echo', args: { text: 'still here' } }] },
    { text: 'Done.' },
  ]);
  const events = await collectEvents({ ...agentInput(model, tools), toolContext: testToolContext(new AbortController().signal, workspace) });
  const results = new Map(
    events.flatMap((event) => (event.type === 'tool-call-end' ? [[event.toolCallId, { isError: event.isError, output: event.output }] as const] : [])),
  );
  return { offered: model.requests[0]!.tools?.map((tool) => tool.name) ?? [], results, terminal: terminalOf(events) };
}

describe('a server that exits at start', () => {
  it('is down with no tools, says what it printed, the turn goes on without it, and it is connected once it starts', async () => {
    const { toggle, server } = brokenFixture('flaky', 'exit-at-start');
    const { connection, log, metrics } = connect(server);
    expect(await connection.settled()).toBe('down');
    expect(connection.tools()).toEqual([]);
    expect(connection.lastError).toContain('fatal: cannot open the widget database');

    const turn = await turnWith(connection, { name: 'flaky__echo', args: { text: 'hi' } });
    expect(turn.offered).toEqual(['local_echo']);
    expect(turn.terminal.type).toBe('run-end');
    expect(turn.results.get('local')).toEqual({ isError: false, output: expect.stringContaining('echo: still here') });
    expect(turn.results.get('mcp')?.isError).toBe(true);

    // retried with backoff meanwhile: one warning for the whole streak, not one per attempt
    await waitFor(async () => ((await metricValue(metrics, 'bot_mcp_errors_total', { server: 'flaky', kind: 'connect' })) ?? 0) >= 3, { what: 'three attempts' });
    expect(log.lines.filter((line) => line.level === 40 && String(line.msg).startsWith('MCP server down'))).toHaveLength(1);

    toggle.fix();
    await waitUntilUp(connection);
    expect((await call(connection.tools(), 'flaky__echo', { text: 'back' })).content).toContain('echo: back');
    expect(await metricValue(metrics, 'bot_mcp_server_up', { server: 'flaky' })).toBe(1);
  });
});

describe('a server that hangs at initialize', () => {
  it('counts as down after the connect timeout, never holds a turn, and is connected once it answers', async () => {
    const { toggle, server } = brokenFixture('stuck', 'hang-at-initialize');
    const started = Date.now();
    // long enough for the fixture to start on a busy machine once it behaves
    const { connection } = connect(server, { connectTimeoutMs: 3_000 });
    expect(await connection.settled()).toBe('down');
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(connection.lastError).toMatch(/within 3 s|timed out/);

    const turn = await turnWith(connection, { name: 'stuck__echo', args: { text: 'hi' } });
    expect(turn.offered).toEqual(['local_echo']);
    expect(turn.terminal.type).toBe('run-end');

    toggle.fix();
    await waitUntilUp(connection);
    expect(connection.tools().map((tool) => tool.name)).toContain('stuck__echo');
  });
});

describe('a server that writes garbage to stdout', () => {
  it('survives a banner line before the protocol starts, logging it as a protocol error', async () => {
    const { connection, log } = connect(fixtureServer('chatty', { FIXTURE_MODE: 'garbage', FIXTURE_BROKEN_FILE: '/nonexistent/never' }));
    await waitUntilUp(connection);
    expect((await call(connection.tools(), 'chatty__echo', { text: 'ok' })).content).toContain('echo: ok');
    expect(log.lines.some((line) => line.level === 40 && String(line.msg).includes('not valid JSON-RPC'))).toBe(true);
  });

  it('that never speaks MCP is down after the timeout, its error log is bounded, and it is connected once it behaves', async () => {
    const { toggle, server } = brokenFixture('noisy', 'garbage');
    const { connection, log } = connect(server, { connectTimeoutMs: 3_000 });
    expect(await connection.settled()).toBe('down');
    const turn = await turnWith(connection, { name: 'noisy__echo', args: { text: 'hi' } });
    expect(turn.offered).toEqual(['local_echo']);
    expect(turn.terminal.type).toBe('run-end');
    const protocolWarnings = () => log.lines.filter((line) => line.level === 40 && String(line.msg).includes('not valid JSON-RPC'));
    await waitFor(() => protocolWarnings().length >= 20, { what: 'protocol errors logged' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(protocolWarnings()).toHaveLength(20);

    toggle.fix();
    await waitUntilUp(connection);
    expect((await call(connection.tools(), 'noisy__echo', { text: 'calm' })).content).toContain('echo: calm');
  });
});

describe('a server that crashes mid-call', () => {
  it('gives the in-flight call an error result, the turn completes, its tools are gone until it is restarted', async () => {
    const { toggle, server } = brokenFixture('crashy', 'crash-mid-call');
    const { connection, metrics } = connect(server);
    await waitUntilUp(connection);
    const turn = await turnWith(connection, { name: 'crashy__echo', args: { text: 'boom' } });
    expect(turn.offered).toEqual(expect.arrayContaining(['local_echo', 'crashy__echo']));
    expect(turn.terminal.type).toBe('run-end');
    expect(turn.results.get('mcp')).toEqual({ isError: true, output: expect.stringContaining("MCP server 'crashy' closed the connection during the call") });
    expect(turn.results.get('local')?.isError).toBe(false);
    // gone the moment the call failed; restarted in the background
    expect(connection.tools()).toEqual([]);
    expect(await metricValue(metrics, 'bot_mcp_tool_calls_total', { server: 'crashy', tool: 'echo', outcome: 'failed' })).toBe(1);
    expect(await metricValue(metrics, 'bot_mcp_errors_total', { server: 'crashy', kind: 'disconnect' })).toBe(1);

    toggle.fix();
    await waitUntilUp(connection);
    expect((await call(connection.tools(), 'crashy__echo', { text: 'fine now' })).content).toContain('echo: fine now');
  });

  it('answers a call in flight when the server is killed from outside', async () => {
    const { connection } = connect(fixtureServer('victim'));
    await waitUntilUp(connection);
    const pid = Number((await call(connection.tools(), 'victim__pid', {})).content.match(/\d+/)![0]);
    const slow = call(connection.tools(), 'victim__slow', { ms: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    const result = await slow;
    expect(result.isError).toBe(true);
    expect(result.content).toContain('closed the connection during the call');
    expect(Date.now() - killedAt).toBeLessThan(2_000);
    await waitUntilUp(connection);
  });
});

describe('results and protocol details', () => {
  it('maps error results, invalid results, resources, and caps long output', async () => {
    const { connection, metrics } = connect(fixtureServer('fx'));
    await waitUntilUp(connection);
    const tools = connection.tools();

    const failed = await call(tools, 'fx__fail', {});
    expect(failed).toMatchObject({ isError: true });
    expect(failed.content).toContain('Error: the widget is broken');
    expect(await metricValue(metrics, 'bot_mcp_tool_calls_total', { server: 'fx', tool: 'fail', outcome: 'tool_error' })).toBe(1);

    const garbage = await call(tools, 'fx__garbage_result', {});
    expect(garbage.isError).toBe(true);
    expect(garbage.content).toContain("MCP server 'fx' answered with an invalid result");
    expect(connection.state).toBe('up');

    const resources = await call(tools, 'fx__resources', {});
    expect(resources.content).toContain('Resource file:///notes/readme.txt (text/plain):\nthe notes');
    expect(resources.content).toContain('[file 1: resource file:///data/report.pdf, application/pdf]');
    expect(resources.content).toContain('Resource link: The doc <https://example.com/doc> (text/html) — read this');
    expect(resources.content).toContain('- file 1: mcp/fx/resources-1.pdf');
    expect(readFileSync(join(workspace, 'mcp/fx/resources-1.pdf'), 'utf8')).toBe('%PDF-1.4 fake');

    const image = await call(tools, 'fx__image', {});
    expect(image.content).toContain('Here is the square:\n[image 1: image/png]');
    expect(readFileSync(join(workspace, 'mcp/fx/image-1.png')).subarray(1, 4).toString()).toBe('PNG');

    const big = await call(tools, 'fx__big', { bytes: 300_000 });
    expect(big.content).toContain('[output truncated: showing the first 200 KB of 293 KB]');

    // the server's own schema: additionalProperties false, integer, required
    const invalid = await call(tools, 'fx__slow', { ms: 1.5, extra: true });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toContain("/: must NOT have additional properties 'extra'");
    expect(invalid.content).toContain('/ms: must be integer');
  });

  it('skips tools with names or schemas the providers refuse, warning once per connection', async () => {
    const { connection, log } = connect(fixtureServer('odd', { FIXTURE_BAD_TOOLS: '1' }));
    await waitUntilUp(connection);
    const names = connection.tools().map((tool) => tool.name);
    expect(names).toContain('odd__echo');
    const reasons = Object.fromEntries(connection.skipped().map((tool) => [tool.name, tool.reason]));
    expect(reasons['bad name!']).toMatch(/refused by the model providers/);
    expect(reasons['x'.repeat(70)]).toMatch(/at most 64 characters/);
    expect(reasons.string_schema).toMatch(/not `type: object` at the top level/);
    expect(reasons.broken_schema).toMatch(/does not compile/);
    expect(reasons.task_only).toMatch(/MCP task/);
    expect(names.some((name) => name.includes('bad') || name.includes('schema') || name.includes('task'))).toBe(false);
    const warned = () => log.lines.filter((line) => line.level === 40 && String(line.msg).startsWith('MCP tool skipped')).map((line) => line.tool);
    expect(warned().sort()).toEqual(['bad name!', 'broken_schema', 'string_schema', 'task_only', 'x'.repeat(70)].sort());

    // a new listing of the same connection does not warn again
    await call(connection.tools(), 'odd__add_tool', { name: 'extra' });
    await waitFor(() => connection.tools().some((tool) => tool.name === 'odd__extra'), { what: 'the new tool' });
    expect(warned()).toHaveLength(5);
  });

  it('follows notifications/tools/list_changed: added tools appear, removed ones disappear', async () => {
    const { connection } = connect(fixtureServer('dyn'));
    await waitUntilUp(connection);
    expect((await call(connection.tools(), 'dyn__add_tool', { name: 'fresh' })).content).toContain('added fresh');
    await waitFor(() => connection.tools().some((tool) => tool.name === 'dyn__fresh'), { what: 'dyn__fresh' });
    expect((await call(connection.tools(), 'dyn__fresh', {})).content).toContain('dynamic fresh');
    await call(connection.tools(), 'dyn__remove_tool', { name: 'fresh' });
    await waitFor(() => !connection.tools().some((tool) => tool.name === 'dyn__fresh'), { what: 'dyn__fresh removed' });
  });

  it('logs the server’s stderr at debug level', async () => {
    const { connection, log } = connect(fixtureServer('talker'));
    await waitUntilUp(connection);
    await waitFor(() => log.lines.some((line) => line.level === 20 && String(line.stderr).includes('starting (mode none)')), { what: 'stderr line' });
  });

  it('restarts a connected server that stops answering pings', async () => {
    const { connection } = connect(fixtureServer('sleepy'), { pingIntervalMs: 150 });
    await waitUntilUp(connection);
    const pid = Number((await call(connection.tools(), 'sleepy__pid', {})).content.match(/\d+/)![0]);
    process.kill(pid, 'SIGSTOP');
    try {
      await waitFor(() => connection.state !== 'up', { what: 'the unresponsive server dropped', timeoutMs: 5_000 });
      expect(connection.tools()).toEqual([]);
      await waitUntilUp(connection);
      const newPid = Number((await call(connection.tools(), 'sleepy__pid', {})).content.match(/\d+/)![0]);
      expect(newPid).not.toBe(pid);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});

describe('McpManager', () => {
  it('gives each agent its servers’ current tools, shares a server declared twice, and stops the children on close', async () => {
    const log = captureLog();
    const shared = fixtureServer('shared');
    const manager = new McpManager(
      [
        { id: 'alpha', mcpServers: [shared, fixtureServer('own', { FIXTURE_MODE: 'exit-at-start' })] },
        { id: 'beta', mcpServers: [shared] },
        { id: 'gamma', mcpServers: [] },
      ],
      { ...FAST, logger: log.logger, metrics: new Metrics({ defaultMetrics: false }) },
    );
    expect(manager.size).toBe(2);
    manager.start();
    try {
      await waitFor(() => manager.toolsFor('beta').length > 0, { what: 'the shared server' });
      expect(manager.toolsFor('alpha').map((tool) => tool.name)).toEqual(manager.toolsFor('beta').map((tool) => tool.name));
      expect(manager.toolsFor('gamma')).toEqual([]);
      expect(manager.toolsFor('unknown')).toEqual([]);
      const pid = Number((await call(manager.toolsFor('alpha'), 'shared__pid', {})).content.match(/\d+/)![0]);
      expect(() => process.kill(pid, 0)).not.toThrow();
      await manager.close();
      expect(() => process.kill(pid, 0)).toThrow();
      expect(manager.toolsFor('alpha')).toEqual([]);
    } finally {
      await manager.close();
    }
  });
});
