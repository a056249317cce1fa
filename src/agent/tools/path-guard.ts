import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './agent-tool.js';

/** Extra roots beyond the workspace, and paths that stay off limits even inside an allowed root. */
export interface FileAccessPolicy {
  allowedPaths: string[];
  deniedPaths: string[];
}

export const DEFAULT_DENIED_PATHS = ['~/.ssh', '~/.gnupg', '~/.aws', '~/.config/gcloud', '/etc/shadow', '/etc/passwd', '/etc/sudoers'];

export function expandHome(path: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return path;
}

/** The real path of `absolute`: symlinks of its nearest existing ancestor resolved, the missing tail appended. */
export async function realPathOfNearestAncestor(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = dirname(current);
      if (parent === current) return absolute;
      missing.push(basename(current));
      current = parent;
    }
  }
}

export function isInside(path: string, root: string): boolean {
  const fromRoot = relative(root, path);
  return fromRoot === '' || (fromRoot.split(sep)[0] !== '..' && !isAbsolute(fromRoot));
}

/**
 * Resolves a path the model asked for (relative to the workspace) to a real absolute path and
 * checks it: symlinks first, then denied paths (which win), then the allowed roots.
 */
export async function resolveToolPath(requested: string, workspace: string, policy: FileAccessPolicy): Promise<string> {
  if (requested.includes('\0')) throw new ToolError('Permission denied: the path contains a NUL byte');
  const real = await realPathOfNearestAncestor(resolve(workspace, requested));
  const denied = await Promise.all(policy.deniedPaths.map((path) => realPathOfNearestAncestor(resolve(expandHome(path)))));
  if (denied.some((root) => isInside(real, root))) {
    throw new ToolError(`Permission denied: ${requested} is in a denied path`);
  }
  const roots = [workspace, ...policy.allowedPaths.map(expandHome)];
  const allowed = await Promise.all(roots.map((root) => realPathOfNearestAncestor(resolve(root))));
  if (!allowed.some((root) => isInside(real, root))) {
    throw new ToolError(`Permission denied: ${requested} is outside the allowed paths (your workspace is ${workspace})`);
  }
  return real;
}
