import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The text of one of this folder's `.lua` files. Walking up from this module finds `src/budgets/lua/`
 * both from the sources (vitest, tsx) and from the compiled `dist/src/budgets/` (tsc does not copy `.lua`).
 */
export function luaScript(name: string): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [path.join(directory, 'lua', name), path.join(directory, 'src', 'budgets', 'lua', name)]) {
      if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no src/budgets/lua/${name} above ${fileURLToPath(import.meta.url)}`);
    directory = parent;
  }
}
