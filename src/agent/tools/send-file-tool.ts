import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Type } from '@sinclair/typebox';
import { defineTool, ToolError, type AgentTool } from './agent-tool.js';
import { formatBytes } from './output-limit.js';
import { DEFAULT_DENIED_PATHS, resolveToolPath, type FileAccessPolicy } from './path-guard.js';

/** What every platform takes as a document (Telegram's Bot API upload limit is the smallest: 50 MB). */
export const SEND_FILE_MAX_BYTES = 50 * 1024 * 1024;
/** Shown inline as pictures; anything else goes as a document. */
const PICTURE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const Parameters = Type.Object({
  path: Type.String({ description: 'The file to send, relative to your workspace (e.g. uploads/report.pdf or chart.png)' }),
  caption: Type.Optional(Type.String({ description: 'A short text sent with the file' })),
});

/** `send_file`: a workspace file to the user — pictures (png, jpeg, gif, webp) as photos, the rest as documents. */
export function createSendFileTool(options: { allowedPaths?: string[]; deniedPaths?: string[] } = {}): AgentTool {
  const policy: FileAccessPolicy = { allowedPaths: options.allowedPaths ?? [], deniedPaths: options.deniedPaths ?? DEFAULT_DENIED_PATHS };
  return defineTool({
    name: 'send_file',
    description:
      'Send a file from your workspace to the user in this chat. Pictures (png, jpeg, gif, webp) are shown as photos, other files are sent as documents. ' +
      'Use it when the user asks for a file or when a file you made is the answer; then say in your reply what you sent.',
    parameters: Parameters,
    category: 'write',
    privileged: true,
    label: 'Sending a file…',
    async execute({ path, caption }, context) {
      if (!context.sendFile || !context.toolCallId) throw new ToolError('sending files is not available here');
      const real = await resolveToolPath(path, context.workspace, policy);
      const info = await stat(real).catch(() => undefined);
      if (!info) throw new ToolError(`Not found: ${path}`);
      if (!info.isFile()) throw new ToolError(`${path} is not a regular file`);
      if (info.size === 0) throw new ToolError(`${path} is empty; nothing to send`);
      if (info.size > SEND_FILE_MAX_BYTES) throw new ToolError(`${path} is ${formatBytes(info.size)}; files over ${formatBytes(SEND_FILE_MAX_BYTES)} cannot be sent`);
      const bytes = await readWhole(real, info.size);
      const { fileTypeFromBuffer } = await import('file-type');
      const detected = await fileTypeFromBuffer(bytes);
      const mimeType = detected?.mime ?? 'application/octet-stream';
      const kind = PICTURE_TYPES.has(mimeType) ? 'photo' : 'document';
      const fileName = basename(real);
      const sent = await context.sendFile({ bytes, fileName, mimeType, kind, ...(caption?.trim() ? { caption: caption.trim() } : {}) }, context.toolCallId);
      if (sent.alreadySent) return `${fileName} was already sent in this turn (before a restart); it was not sent again.`;
      return `Sent ${fileName} (${formatBytes(bytes.length)}) as a ${kind}.`;
    },
  });
}

async function readWhole(path: string, size: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
