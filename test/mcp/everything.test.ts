import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executeToolCall } from '../../src/agent/tool-calls.js';
import type { AgentTool } from '../../src/agent/tools/agent-tool.js';
import type { McpConnection } from '../../src/mcp/mcp-connection.js';
import { testToolContext } from '../agent/support/agent-run.js';
import {
  closeConnections,
  connect,
  everythingStdio,
  httpServer,
  metricValue,
  startEverythingHttp,
  waitUntilUp,
  type HttpEverything,
} from './support/mcp-servers.js';

let workspace: string;

beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'mcp-everything-'));
});

afterEach(closeConnections);

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

function toolsByName(connection: McpConnection): Map<string, AgentTool> {
  return new Map(connection.tools().map((tool) => [tool.name, tool]));
}

/** Through the agent's own tool-call path: argument validation, execution, error-as-content. */
async function call(connection: McpConnection, name: string, args: unknown, signal = new AbortController().signal) {
  return executeToolCall({ type: 'tool-call', id: 'call-1', name, arguments: JSON.stringify(args) }, toolsByName(connection), testToolContext(signal, workspace), Date.now);
}

/** The behaviour every transport must show against server-everything. */
async function exerciseEverything(connection: McpConnection): Promise<void> {
  const names = connection.tools().map((tool) => tool.name);
  expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__get-tiny-image']));
  const echo = connection.tools().find((tool) => tool.name === 'everything__echo')!;
  expect(echo.parameters).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
  expect(echo.parameters).not.toHaveProperty('$schema');
  // server-everything annotates echo readOnlyHint: a server's word, not the operator's (CONTRACT §11b)
  expect(echo.category).toBe('write');
  expect(echo.privileged).toBe(true);

  const echoed = await call(connection, 'everything__echo', { message: 'hello MCP' });
  expect(echoed).toMatchObject({ isError: false });
  expect(echoed.content).toContain('Echo: hello MCP');

  const sum = await call(connection, 'everything__get-sum', { a: 2, b: 40 });
  expect(sum.content).toContain('The sum of 2 and 40 is 42.');

  // arguments are checked against the server's JSON Schema before anything is sent
  const invalid = await call(connection, 'everything__get-sum', { a: 'two' });
  expect(invalid.isError).toBe(true);
  expect(invalid.content).toContain("invalid arguments for tool 'everything__get-sum'");
  expect(invalid.content).toContain('/a: must be number');
  expect(invalid.content).toContain("/: must have required property 'b'");
}

describe('server-everything over stdio', () => {
  it('offers its tools as <server>__<tool> and calls echo and get-sum through the agent tool path', async () => {
    const { connection, metrics } = connect(everythingStdio());
    await waitUntilUp(connection);
    expect(connection.transportKind).toBe('stdio');
    await exerciseEverything(connection);
    expect(await metricValue(metrics, 'bot_mcp_server_up', { server: 'everything' })).toBe(1);
    expect(await metricValue(metrics, 'bot_mcp_tool_calls_total', { server: 'everything', tool: 'echo', outcome: 'ok' })).toBe(1);
    expect(await metricValue(metrics, 'bot_mcp_tool_calls_total', { server: 'everything', tool: 'get-sum', outcome: 'ok' })).toBe(1);
  });

  it('saves an image result into the turn’s workspace and names the file in the text', async () => {
    const { connection } = connect(everythingStdio());
    await waitUntilUp(connection);
    const first = await call(connection, 'everything__get-tiny-image', {});
    expect(first.isError).toBe(false);
    expect(first.content).toContain('[image 1: image/png]');
    expect(first.content).toContain('- image 1: mcp/everything/get-tiny-image-1.png');
    const bytes = readFileSync(join(workspace, 'mcp/everything/get-tiny-image-1.png'));
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    // a second call does not overwrite the first file
    const second = await call(connection, 'everything__get-tiny-image', {});
    expect(second.content).toContain('- image 1: mcp/everything/get-tiny-image-2.png');
  });

  it('maps resource links and embedded resources to text', async () => {
    const { connection } = connect(everythingStdio());
    await waitUntilUp(connection);
    const links = await call(connection, 'everything__get-resource-links', { count: 2 });
    expect(links.content).toMatch(/Resource link: .+ <demo:\/\/resource\/dynamic\/[a-z]+\/1> \(text\/plain\)/);
    const reference = await call(connection, 'everything__get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    expect(reference.content).toMatch(/Resource demo:\/\/resource\/dynamic\/text\/1 \(text\/plain\):\nResource 1: This is a plaintext resource/);
  });

  it('honours tools.allow / tools.deny and marks the tools of an approval: always server', async () => {
    const { connection } = connect(everythingStdio('picky', { tools: { allow: ['echo', 'get-sum', 'get-env'], deny: ['get-env'] }, approval: 'always' }));
    await waitUntilUp(connection);
    expect(connection.tools().map((tool) => tool.name).sort()).toEqual(['picky__echo', 'picky__get-sum']);
    expect(connection.tools().every((tool) => tool.requiresApproval === true)).toBe(true);
  });

  it('skips the task-only tool, saying why, once per connection', async () => {
    const { connection, log } = connect(everythingStdio());
    await waitUntilUp(connection);
    // server-everything registers it once initialized (and announces it with tools/list_changed)
    await expectEventually(() => connection.skipped().some((tool) => tool.name === 'simulate-research-query'));
    expect(connection.tools().map((tool) => tool.name)).not.toContain('everything__simulate-research-query');
    const warnings = log.lines.filter((line) => line.level === 40 && line.tool === 'simulate-research-query');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain('can only run as an MCP task');
  });
});

async function expectEventually(probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('server-everything over HTTP', () => {
  let streamable: HttpEverything | undefined;
  let sse: HttpEverything | undefined;

  afterAll(async () => {
    await streamable?.stop();
    await sse?.stop();
  });

  it('speaks Streamable HTTP to a Streamable HTTP server', async () => {
    streamable = await startEverythingHttp('streamableHttp');
    const { connection, log } = connect(httpServer('everything', streamable.url, { headers: { 'x-api-key': 'secret-header-value' } }));
    await waitUntilUp(connection);
    expect(connection.transportKind).toBe('streamable-http');
    await exerciseEverything(connection);
    expect(log.text()).not.toContain('secret-header-value');
  });

  it('sends the configured headers with the Streamable HTTP POST and the SSE GET, and says why it could not connect', async () => {
    const seen: Array<{ method: string; apiKey: string | undefined }> = [];
    const refusing = createServer((request, response) => {
      seen.push({ method: request.method ?? '', apiKey: request.headers['x-api-key'] as string | undefined });
      response.writeHead(404).end('no MCP here');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = refusing.address() as AddressInfo;
      const { connection } = connect(httpServer('nothing', `http://127.0.0.1:${port}/mcp`, { headers: { 'x-api-key': 'k-123' } }));
      expect(await connection.settled()).toBe('down');
      expect(connection.lastError).toMatch(/^could not connect: /);
      expect(seen.map((request) => request.method)).toEqual(['POST', 'GET']);
      expect(seen.every((request) => request.apiKey === 'k-123')).toBe(true);
      expect(connection.tools()).toEqual([]);
    } finally {
      refusing.close();
    }
  });

  it('falls back to HTTP+SSE when the Streamable HTTP POST gets a 4xx', async () => {
    sse = await startEverythingHttp('sse');
    const { connection } = connect(httpServer('everything', sse.url));
    await waitUntilUp(connection);
    expect(connection.transportKind).toBe('sse');
    await exerciseEverything(connection);
  });

  it('drops the tools of an HTTP server that went away, fails a call at once, and reconnects when it is back', async () => {
    const server = await startEverythingHttp('streamableHttp');
    try {
      const { connection, metrics } = connect(httpServer('everything', server.url), { pingIntervalMs: 200 });
      await waitUntilUp(connection);
      const echo = toolsByName(connection).get('everything__echo')!;
      await server.stop();
      await expectEventually(() => connection.state !== 'up');
      expect(connection.tools()).toEqual([]);
      expect(await metricValue(metrics, 'bot_mcp_server_up', { server: 'everything' })).toBe(0);
      // a turn that still holds the tool from before gets an error result, without waiting
      const started = Date.now();
      const result = await executeToolCall(
        { type: 'tool-call', id: 'c', name: 'everything__echo', arguments: '{"message":"anyone?"}' },
        new Map([[echo.name, echo]]),
        testToolContext(new AbortController().signal, workspace),
        Date.now,
      );
      expect(result.isError).toBe(true);
      expect(result.content).toContain("MCP server 'everything' is not connected right now");
      expect(Date.now() - started).toBeLessThan(1_000);

      const again = await startEverythingHttp('streamableHttp', server.port);
      try {
        await waitUntilUp(connection);
        expect((await call(connection, 'everything__echo', { message: 'back' })).content).toContain('Echo: back');
      } finally {
        await again.stop();
      }
    } finally {
      await server.stop();
    }
  });
});
