import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The text of one of `src/queue/lua/`'s scripts, found from the sources (vitest) and from the compiled
 * `dist/src/queue/` alike (tsc does not copy `.lua`; the Dockerfile copies the folder beside `dist`).
 */
export function queueLua(name: string): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [path.join(directory, 'lua', name), path.join(directory, 'src', 'queue', 'lua', name)]) {
      if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no src/queue/lua/${name} above ${fileURLToPath(import.meta.url)}`);
    directory = parent;
  }
}
