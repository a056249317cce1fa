import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/**
 * The package's `drizzle/` folder. Walking up from this file finds it both from `src/store/`
 * (tsx, vitest) and from the compiled `dist/src/store/`.
 */
export function migrationsFolder(): string {
  if (found) return found;
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(directory, 'drizzle');
    if (existsSync(path.join(candidate, 'meta', '_journal.json'))) return (found = candidate);
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no drizzle/meta/_journal.json above ${fileURLToPath(import.meta.url)}`);
    directory = parent;
  }
}
