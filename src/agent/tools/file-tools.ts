import { appendFile, mkdir, open, readdir, stat, writeFile } from 'node:fs/promises';
import { codeLabel } from './tool-label.js';
import { dirname, relative } from 'node:path';
import { Type } from '@sinclair/typebox';
import { defineTool, ToolError, type AgentTool } from './agent-tool.js';
import { DEFAULT_MAX_OUTPUT_BYTES, formatBytes } from './output-limit.js';
import { DEFAULT_DENIED_PATHS, isInside, resolveToolPath, type FileAccessPolicy } from './path-guard.js';

export interface FileToolOptions {
  /** Roots allowed besides the user's workspace. */
  allowedPaths?: string[];
  /** Off limits even inside an allowed root; defaults to credentials directories and files. */
  deniedPaths?: string[];
  maxOutputBytes?: number;
}

const MAX_DIRECTORY_ENTRIES = 1000;

function shownPath(real: string, workspace: string): string {
  return isInside(real, workspace) ? relative(workspace, real) || '.' : real;
}

function describeFailure(error: unknown, requested: string): never {
  if (error instanceof ToolError) throw error;
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      throw new ToolError(`Not found: ${requested}`);
    case 'EISDIR':
      throw new ToolError(`${requested} is a directory; use list_directory`);
    case 'ENOTDIR':
      throw new ToolError(`${requested} is not a directory`);
    case 'EACCES':
    case 'EPERM':
      throw new ToolError(`Permission denied by the file system: ${requested}`);
    default:
      throw error;
  }
}

/**
 * Up to `maxBytes` of a file from byte `offset` on (moved to the next character boundary, so a UTF-8
 * character is never cut); when more follows, the notice names the offset to continue from.
 */
async function readCapped(path: string, maxBytes: number, offset = 0): Promise<string> {
  // Checked before opening: opening a FIFO or a device could block or never end.
  const info = await stat(path);
  if (!info.isFile()) throw new ToolError(info.isDirectory() ? 'this is a directory; use list_directory' : 'not a regular file');
  if (offset > 0 && offset >= info.size) throw new ToolError(`offset ${offset} is past the end of the file (${info.size} bytes)`);
  const handle = await open(path, 'r');
  try {
    // three bytes more on each side: enough to find the character boundaries of the range
    const start = Math.max(0, offset - 3);
    const buffer = Buffer.alloc(Math.min(info.size - start, maxBytes + (offset - start) + 3));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    const read = buffer.subarray(0, bytesRead);
    let from = offset - start;
    while (from < read.length && isContinuationByte(read[from]!)) from++;
    let to = Math.min(read.length, from + maxBytes);
    if (start + to < info.size) while (to > from && isContinuationByte(read[to]!)) to--;
    const content = read.subarray(from, to);
    if (content.subarray(0, 8192).includes(0)) throw new ToolError(`the file looks binary (${formatBytes(info.size)}); not shown`);
    const [shownFrom, end] = [start + from, start + to];
    if (end >= info.size) return content.toString('utf8');
    const shown = shownFrom === 0 ? `the first ${formatBytes(to)} of ${formatBytes(info.size)}` : `bytes ${shownFrom} to ${end} of ${info.size}`;
    return `${content.toString('utf8')}\n\n[output truncated: showing ${shown}; read on with offset ${end}]`;
  } finally {
    await handle.close();
  }
}

/** `10xxxxxx`: inside a UTF-8 character, not at its start. */
function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** `read_file`, `write_file` and `list_directory`, confined to the workspace and the configured roots. */
export function createFileTools(options: FileToolOptions = {}): AgentTool[] {
  const policy: FileAccessPolicy = { allowedPaths: options.allowedPaths ?? [], deniedPaths: options.deniedPaths ?? DEFAULT_DENIED_PATHS };
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;

  const readFile = defineTool({
    name: 'read_file',
    description: `Read a text file. Paths are relative to your workspace. Shows up to ${formatBytes(maxBytes)} at a time; for a longer file, pass the offset the notice at the end names to read on.`,
    category: 'read',
    label: ({ path }) => codeLabel('Reading', path),
    parameters: Type.Object({
      path: Type.String({ description: 'File path, relative to the workspace', minLength: 1 }),
      offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Byte offset to start reading at (default 0)' })),
    }),
    async execute(args, context) {
      const real = await resolveToolPath(args.path, context.workspace, policy);
      return readCapped(real, maxBytes, args.offset ?? 0).catch((error: unknown) => describeFailure(error, args.path));
    },
  });

  const writeFileTool = defineTool({
    name: 'write_file',
    description: 'Write a text file (parent directories are created). Paths are relative to your workspace.',
    category: 'write',
    privileged: true,
    label: ({ path }) => codeLabel('Writing', path),
    parameters: Type.Object({
      path: Type.String({ description: 'File path, relative to the workspace', minLength: 1 }),
      content: Type.String({ description: 'The full text to write' }),
      append: Type.Optional(Type.Boolean({ description: 'Append instead of replacing the file' })),
    }),
    async execute(args, context) {
      const real = await resolveToolPath(args.path, context.workspace, policy);
      try {
        await mkdir(dirname(real), { recursive: true });
        await (args.append ? appendFile(real, args.content, 'utf8') : writeFile(real, args.content, 'utf8'));
      } catch (error) {
        describeFailure(error, args.path);
      }
      const bytes = Buffer.byteLength(args.content, 'utf8');
      return `${args.append ? 'Appended' : 'Wrote'} ${formatBytes(bytes)} to ${shownPath(real, context.workspace)}`;
    },
  });

  const listDirectory = defineTool({
    name: 'list_directory',
    description: 'List the files and directories at a path (directories end with /). Defaults to the workspace root.',
    category: 'read',
    label: 'Looking through files…',
    parameters: Type.Object({ path: Type.Optional(Type.String({ description: 'Directory path, relative to the workspace' })) }),
    async execute(args, context) {
      const requested = args.path ?? '.';
      const real = await resolveToolPath(requested, context.workspace, policy);
      try {
        if (!(await stat(real)).isDirectory()) throw new ToolError(`${requested} is not a directory`);
        const entries = await readdir(real, { withFileTypes: true });
        const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
        if (names.length === 0) return `${shownPath(real, context.workspace)} is empty`;
        const shown = names.slice(0, MAX_DIRECTORY_ENTRIES).join('\n');
        return names.length > MAX_DIRECTORY_ENTRIES ? `${shown}\n[${names.length - MAX_DIRECTORY_ENTRIES} more entries not shown]` : shown;
      } catch (error) {
        return describeFailure(error, requested);
      }
    },
  });

  return [readFile, writeFileTool, listDirectory];
}
