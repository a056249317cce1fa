import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const INCLUDE = /^--- @include "([a-z-]+)"$/gm;
let folder: string | undefined;

/**
 * Where the `.lua` files are: walking up from this module finds `src/redis/lua/` from the sources (vitest),
 * from `dist/src/redis/` (tsc copies no `.lua`) and from the bundle in `dist/bundle/`.
 */
function luaFolder(): string {
  if (folder) return folder;
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [path.join(directory, 'lua'), path.join(directory, 'src', 'redis', 'lua')]) {
      if (existsSync(path.join(candidate, 'common.lua'))) return (folder = candidate);
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no src/redis/lua/common.lua above ${fileURLToPath(import.meta.url)}`);
    directory = parent;
  }
}

/** The text of `<name>.lua`, its `--- @include "<file>"` lines replaced by that file's text (as BullMQ's scripts do). */
export function luaSource(name: string): string {
  const text = readFileSync(path.join(luaFolder(), `${name}.lua`), 'utf8');
  return text.replace(INCLUDE, (_line, included: string) => luaSource(included));
}
