import { Type, type Static } from '@sinclair/typebox';

/**
 * An agent's `mcpServers` in the config file: a map from a server name to a stdio command or an
 * HTTP URL (CONTRACT §11). The schema accepts the union of the fields so that an unknown key is
 * reported at its own path; `checkMcpServers` then says which fields belong to which transport.
 */
const Strict = { additionalProperties: false } as const;
const Optional = Type.Optional;

export const MCP_SERVER_NAME = /^[a-z0-9-]{1,32}$/;
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

export const McpServerSchema = Type.Object(
  {
    /** stdio: the program to start (one child process per worker process). */
    command: Optional(Type.String({ minLength: 1 })),
    args: Optional(Type.Array(Type.String())),
    /** Added to a minimal inherited environment (HOME, PATH, …); values are secrets. */
    env: Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String())),
    /** Working directory of the child (relative: to the service's working directory). */
    cwd: Optional(Type.String({ minLength: 1 })),
    /** Streamable HTTP, falling back to the older HTTP+SSE transport. */
    url: Optional(Type.String({ pattern: '^https?://' })),
    /** Sent with every request; values are secrets. */
    headers: Optional(Type.Record(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }), Type.String())),
    /** By the server's own tool names; `deny` wins. */
    tools: Optional(
      Type.Object(
        {
          allow: Optional(Type.Array(Type.String({ minLength: 1 }))),
          deny: Optional(Type.Array(Type.String({ minLength: 1 }))),
        },
        Strict,
      ),
    ),
    /** `always`: every call of this server's tools waits for a person's approval. */
    approval: Optional(Type.Union([Type.Literal('never'), Type.Literal('always')])),
    /** Per tool call; the call is cancelled on the server when it runs out. */
    timeoutMs: Optional(Type.Integer({ minimum: 1 })),
    readOnlyTools: Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Tools of this server (by the name the server lists, without the "<server>__" prefix) that only read: they may be offered ' +
          'to sub-agents and run in scheduled firings without schedules.allowTools. Every other tool of the server is treated as ' +
          'write (privileged), whatever the server says about it.',
      }),
    ),
    trustAnnotations: Optional(
      Type.Boolean({
        default: false,
        description:
          "true: accept the server's own readOnlyHint annotations, so a tool the server calls read-only is treated as read-only. " +
          'Only for a server you vouch for: the MCP specification says annotations are hints a client must not trust from an ' +
          'untrusted server. Default false: only readOnlyTools are read-only.',
      }),
    ),
  },
  Strict,
);

export const McpServersSchema = Type.Record(Type.String(), McpServerSchema);

export type McpServerEntry = Static<typeof McpServerSchema>;

interface McpServerCommon {
  name: string;
  tools: { allow?: string[] | undefined; deny?: string[] | undefined };
  approval: 'never' | 'always';
  timeoutMs: number;
  /** The operator's word: these tools (the server's names) only read. */
  readOnlyTools: string[];
  /** Accept the server's `readOnlyHint` as the operator's word. */
  trustAnnotations: boolean;
}

export interface McpStdioServer extends McpServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
}

export interface McpHttpServer extends McpServerCommon {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

/** What is wrong with one server entry: a path below the server (`''` for the entry itself) and a message. */
export interface McpServerProblem {
  pointer: string;
  message: string;
}

const STDIO_ONLY = ['args', 'env', 'cwd'] as const;

function problemOf(name: string, entry: McpServerEntry): McpServerProblem | undefined {
  if (!MCP_SERVER_NAME.test(name)) {
    return { pointer: '', message: 'a server name is 1 to 32 lowercase letters, digits or "-" (it prefixes its tools: <server>__<tool>)' };
  }
  if (entry.command === undefined && entry.url === undefined) return { pointer: '', message: 'set either command (stdio) or url (HTTP)' };
  if (entry.command !== undefined && entry.url !== undefined) return { pointer: '/url', message: 'set either command (stdio) or url (HTTP), not both' };
  if (entry.url !== undefined) {
    const stdioField = STDIO_ONLY.find((field) => entry[field] !== undefined);
    if (stdioField) return { pointer: `/${stdioField}`, message: `${stdioField} applies to a stdio server (command), not to url` };
    try {
      new URL(entry.url);
    } catch {
      return { pointer: '/url', message: 'not a valid URL' };
    }
  }
  if (entry.command !== undefined && entry.headers !== undefined) return { pointer: '/headers', message: 'headers apply to an HTTP server (url), not to command' };
  return undefined;
}

/** The first problem of the servers (name, pointer below `mcpServers`, message), if any. */
export function checkMcpServers(entries: Record<string, McpServerEntry>): (McpServerProblem & { name: string }) | undefined {
  for (const [name, entry] of Object.entries(entries)) {
    const problem = problemOf(name, entry);
    if (problem) return { name, ...problem };
  }
  return undefined;
}

/** Entries already checked by `checkMcpServers`, with defaults applied. */
export function parseMcpServers(entries: Record<string, McpServerEntry> | undefined): McpServerConfig[] {
  return Object.entries(entries ?? {}).map(([name, entry]): McpServerConfig => {
    const common = {
      name,
      tools: { allow: entry.tools?.allow, deny: entry.tools?.deny },
      approval: entry.approval ?? 'never',
      timeoutMs: entry.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
      readOnlyTools: entry.readOnlyTools ?? [],
      trustAnnotations: entry.trustAnnotations ?? false,
    };
    if (entry.url !== undefined) return { ...common, transport: 'http', url: entry.url, headers: entry.headers ?? {} };
    return { ...common, transport: 'stdio', command: entry.command!, args: entry.args ?? [], env: entry.env ?? {}, cwd: entry.cwd };
  });
}
