import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import { errorMessage } from '../core/errors.js';
import { formatBytes } from '../agent/tools/output-limit.js';
import { DEFAULT_DENIED_PATHS, resolveToolPath } from '../agent/tools/path-guard.js';
import type { BinaryContent, MappedToolResult } from './map-call-tool-result.js';

/** Same bound as an inbound attachment (MEDIA_MAX_BYTES' default). */
export const MAX_RESULT_FILE_BYTES = 20 * 1024 * 1024;
const MAX_NAME_ATTEMPTS = 1_000;

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'application/gzip': 'gz',
  'application/zip': 'zip',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/csv': 'csv',
};

function uriExtension(uri: string): string {
  try {
    return extname(new URL(uri).pathname).slice(1);
  } catch {
    return '';
  }
}

function extensionOf(content: BinaryContent): string {
  const known = EXTENSIONS[content.mimeType.toLowerCase().split(';')[0]!.trim()];
  if (known) return known;
  const fromUri = content.uri ? uriExtension(content.uri) : '';
  if (/^[A-Za-z0-9]{1,8}$/.test(fromUri)) return fromUri.toLowerCase();
  return 'bin';
}

/** Writes `data` to `mcp/<server>/<tool>-<n>.<ext>` with the first free n, inside the workspace only. */
async function writeUnique(workspace: string, server: string, tool: string, extension: string, data: Buffer): Promise<string> {
  for (let n = 1; n <= MAX_NAME_ATTEMPTS; n++) {
    const relative = `mcp/${server}/${tool}-${n}.${extension}`;
    const real = await resolveToolPath(relative, workspace, { allowedPaths: [], deniedPaths: DEFAULT_DENIED_PATHS });
    await mkdir(dirname(real), { recursive: true });
    try {
      await writeFile(real, data, { flag: 'wx' });
      return relative;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`more than ${MAX_NAME_ATTEMPTS} files named mcp/${server}/${tool}-<n>.${extension}`);
}

async function saveOne(label: string, content: BinaryContent, workspace: string, server: string, tool: string): Promise<string> {
  // base64: 4 characters per 3 bytes; checked before decoding so a huge payload is never held twice
  const size = Math.floor((content.data.length * 3) / 4);
  if (size > MAX_RESULT_FILE_BYTES) return `${label}: not saved (${formatBytes(size)}, over the ${formatBytes(MAX_RESULT_FILE_BYTES)} limit)`;
  try {
    const path = await writeUnique(workspace, server, tool, extensionOf(content), Buffer.from(content.data, 'base64'));
    return `${label}: ${path}`;
  } catch (error) {
    return `${label}: not saved (${errorMessage(error)})`;
  }
}

/**
 * Saves a result's images and files into the turn's workspace, where the file tools
 * can reach them; returns one line per part naming its path (relative to the workspace).
 */
export async function saveResultFiles(mapped: MappedToolResult, workspace: string, server: string, tool: string): Promise<string[]> {
  const lines: string[] = [];
  for (const [index, image] of mapped.images.entries()) lines.push(await saveOne(`image ${index + 1}`, image, workspace, server, tool));
  for (const [index, file] of mapped.files.entries()) lines.push(await saveOne(`file ${index + 1}`, file, workspace, server, tool));
  return lines;
}
