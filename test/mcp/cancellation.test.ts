import { afterEach, describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/agent/tool-calls.js';
import type { AgentTool } from '../../src/agent/tools/agent-tool.js';
import type { McpConnection } from '../../src/mcp/mcp-connection.js';
import { testToolContext } from '../agent/support/agent-run.js';
import { waitFor } from '../support/service-process.js';
import { closeConnections, connect, fixtureServer, metricValue, waitUntilUp } from './support/mcp-servers.js';

afterEach(closeConnections);

function call(tools: AgentTool[], name: string, args: unknown, signal = new AbortController().signal) {
  return executeToolCall({ type: 'tool-call', id: 'c1', name, arguments: JSON.stringify(args) }, new Map(tools.map((tool) => [tool.name, tool])), testToolContext(signal), Date.now);
}

async function cancellationsSeen(connection: McpConnection): Promise<Array<{ requestId: number; reason: string }>> {
  const result = await call(connection.tools(), `${connection.server.name}__cancellations`, {});
  return JSON.parse(result.content.slice(result.content.indexOf('[')));
}

describe('cancelling an MCP tool call', () => {
  it('sends notifications/cancelled when the turn is stopped, and the call returns at once', async () => {
    const { connection, metrics } = connect(fixtureServer('cx'));
    await waitUntilUp(connection);
    const controller = new AbortController();
    const pending = call(connection.tools(), 'cx__slow', { ms: 30_000 }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stoppedAt = Date.now();
    controller.abort(new Error('/stop'));
    const outcome = await pending;
    expect(Date.now() - stoppedAt).toBeLessThan(500);
    expect(outcome).toMatchObject({ cancelled: true, isError: true });
    // the server saw the cancellation of that request and stopped working on it
    await waitFor(async () => (await cancellationsSeen(connection)).length === 1, { what: 'the server to see the cancellation' });
    expect((await cancellationsSeen(connection))[0]!.reason).toContain('/stop');
    expect(connection.state).toBe('up');
    await waitFor(async () => (await metricValue(metrics, 'bot_mcp_tool_calls_total', { server: 'cx', tool: 'slow', outcome: 'cancelled' })) === 1, {
      what: 'the cancelled call counted',
    });
  });

  it('cancels a call that runs past timeoutMs on the server and gives the model an error result', async () => {
    const { connection, metrics } = connect(fixtureServer('tx', {}, { timeoutMs: 300 }));
    await waitUntilUp(connection);
    const started = Date.now();
    const outcome = await call(connection.tools(), 'tx__slow', { ms: 30_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcome).toMatchObject({ cancelled: false, isError: true });
    expect(outcome.content).toContain("MCP server 'tx' did not answer slow within 300 ms; the call was cancelled.");
    await waitFor(async () => (await cancellationsSeen(connection)).length === 1, { what: 'the server to see the cancellation' });
    expect(await metricValue(metrics, 'bot_mcp_tool_calls_total', { server: 'tx', tool: 'slow', outcome: 'timeout' })).toBe(1);
    // a timeout is the call's problem, not the server's: it stays connected
    expect(connection.state).toBe('up');
    expect((await call(connection.tools(), 'tx__slow', { ms: 10 })).content).toContain('slept 10 ms');
  });
});
