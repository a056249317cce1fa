import { mkdir, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isInside, realPathOfNearestAncestor } from '../agent/tools/path-guard.js';

export const UPLOADS_FOLDER = 'uploads';
const NAME_MAX_CHARS = 120;

/** A platform's file name as one safe path segment: no separators, no leading dots, no controls, bounded. */
export function sanitizeFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).at(-1) ?? '';
  const cleaned = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  const safe = cleaned === '' ? fallback : cleaned;
  if (safe.length <= NAME_MAX_CHARS) return safe;
  const extension = extname(safe).slice(0, 16);
  return safe.slice(0, NAME_MAX_CHARS - extension.length) + extension;
}

/**
 * Writes a received document to `<workspace>/uploads/<name>`; a later file of the same name replaces it (the
 * newest is what the user means). Returns the path relative to the workspace.
 */
export async function saveUpload(workspace: string, fileName: string, bytes: Buffer): Promise<string> {
  const folder = join(workspace, UPLOADS_FOLDER);
  await mkdir(folder, { recursive: true });
  const target = join(folder, fileName);
  // the uploads folder could be a symlink a tool made: the real target must still be inside the workspace
  const [realTarget, realWorkspace] = await Promise.all([realPathOfNearestAncestor(target), realPathOfNearestAncestor(workspace)]);
  if (!isInside(realTarget, realWorkspace)) throw new Error(`${UPLOADS_FOLDER}/${fileName} resolves outside the workspace`);
  await writeFile(realTarget, bytes);
  return `${UPLOADS_FOLDER}/${fileName}`;
}
