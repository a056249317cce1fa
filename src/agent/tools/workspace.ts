import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * A directory name for a user id. Ids that are already safe stay readable; others are
 * sanitized and suffixed with a hash so `a:b` and `a_b` never share a workspace.
 */
export function sanitizeUserId(userId: string): string {
  if (SAFE_ID.test(userId)) return userId;
  const readable = userId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'user';
  const hash = createHash('sha256').update(userId).digest('hex').slice(0, 10);
  return `${readable}-${hash}`;
}

/** Workspaces this process already created (bounded; forgetting one only costs a harmless mkdir). */
const created = new Set<string>();
const CREATED_LIMIT = 10_000;

/** `<dataDir>/workspaces/<sanitized user id>`, absolute; not created (see `ensureWorkspace`). */
export function workspacePathFor(dataDir: string, userId: string): string {
  return join(resolve(dataDir), 'workspaces', sanitizeUserId(userId));
}

/**
 * Creates a workspace directory unless this process did already. Creating one costs the disk a few hundred µs,
 * so a turn creates it only when it needs it: before a tool runs, or to save an attachment.
 */
export async function ensureWorkspace(directory: string): Promise<void> {
  if (created.has(directory)) return;
  await mkdir(directory, { recursive: true });
  if (created.size >= CREATED_LIMIT) created.clear();
  created.add(directory);
}

/** `workspacePathFor`, created. */
export async function workspaceFor(dataDir: string, userId: string): Promise<string> {
  const directory = workspacePathFor(dataDir, userId);
  await ensureWorkspace(directory);
  return directory;
}
