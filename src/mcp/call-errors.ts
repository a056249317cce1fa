import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/errors.js';
import { formatDuration } from '../agent/tools/output-limit.js';

/**
 * Why a request to a server failed:
 * - `timeout`: no answer in time (the request was cancelled on the server);
 * - `closed`: the connection ended while waiting (a stdio server crashed or exited);
 * - `server`: the server answered with a JSON-RPC error;
 * - `invalid-result`: the server answered something that is not a valid result;
 * - `transport`: the request could not be delivered (HTTP down, broken pipe): the connection is restarted.
 */
export type FailureKind = 'timeout' | 'closed' | 'server' | 'invalid-result' | 'transport';

export function failureKind(error: unknown): FailureKind {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return 'timeout';
    if (error.code === ErrorCode.ConnectionClosed) return 'closed';
    return 'server';
  }
  // a result that does not parse: zod's error (named ZodError or $ZodError by zod version) lists its issues
  if (error instanceof Error && Array.isArray((error as { issues?: unknown }).issues)) return 'invalid-result';
  return 'transport';
}

/** The SDK prefixes `MCP error <code>: ` (twice when a server passes an SDK error on); the model needs only what follows. */
export function plainMessage(error: unknown): string {
  return errorMessage(error).replace(/^(MCP error -?\d+: )+/, '');
}

/** What the model reads when a call did not produce a result. */
export function callFailureMessage(error: unknown, server: string, tool: string, timeoutMs: number): string {
  const prefix = `MCP server '${server}'`;
  switch (failureKind(error)) {
    case 'timeout':
      return `${prefix} did not answer ${tool} within ${formatDuration(timeoutMs)}; the call was cancelled.`;
    case 'closed':
      return `${prefix} closed the connection during the call (it crashed or exited); it is being restarted. The call may or may not have taken effect.`;
    case 'server':
      return `${prefix} refused the call: ${plainMessage(error)}`;
    case 'invalid-result':
      return `${prefix} answered with an invalid result.`;
    case 'transport':
      return `${prefix} could not be reached: ${plainMessage(error)}`;
  }
}

/** A call to a server that is not connected right now. */
export class McpUnavailableError extends Error {
  constructor(server: string, reason: string | undefined) {
    super(`MCP server '${server}' is not connected right now${reason ? ` (${reason})` : ''}; its tools are back once it reconnects.`);
    this.name = 'McpUnavailableError';
  }
}
