import type { Readable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpHttpServer, McpServerConfig, McpStdioServer } from './mcp-config.js';

export type TransportKind = 'stdio' | 'streamable-http' | 'sse';

export interface OpenClientOptions {
  /** A fresh client with its handlers set; called once per transport tried. */
  createClient: () => Client;
  /** Timeout of the `initialize` request. */
  timeoutMs: number;
  /** The child's stderr, as soon as it exists (stdio only). */
  onStderr?: (stream: Readable) => void;
}

async function openStdio(server: McpStdioServer, options: OpenClientOptions): Promise<{ client: Client; kind: TransportKind }> {
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env: server.env, cwd: server.cwd, stderr: 'pipe' });
  if (transport.stderr) options.onStderr?.(transport.stderr as Readable);
  const client = options.createClient();
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return { client, kind: 'stdio' };
}

/** The spec's backwards compatibility: a 4xx to the Streamable HTTP POST means an older HTTP+SSE server. */
function answersLikeAnSseServer(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
}

async function openHttp(server: McpHttpServer, options: OpenClientOptions): Promise<{ client: Client; kind: TransportKind }> {
  const url = new URL(server.url);
  const requestInit = { headers: server.headers };
  const client = options.createClient();
  try {
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }), { timeout: options.timeoutMs });
    return { client, kind: 'streamable-http' };
  } catch (error) {
    await client.close().catch(() => {});
    if (!answersLikeAnSseServer(error)) throw error;
  }
  const sseClient = options.createClient();
  try {
    await sseClient.connect(new SSEClientTransport(url, { requestInit }), { timeout: options.timeoutMs });
  } catch (error) {
    await sseClient.close().catch(() => {});
    throw error;
  }
  return { client: sseClient, kind: 'sse' };
}

/** Starts the transport and runs `initialize`: stdio, or Streamable HTTP falling back to HTTP+SSE. */
export function openClient(server: McpServerConfig, options: OpenClientOptions): Promise<{ client: Client; kind: TransportKind }> {
  return server.transport === 'stdio' ? openStdio(server, options) : openHttp(server, options);
}
