import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The absolute path of `name` (a path, or a name looked up on `searchPath`), or undefined. */
export function findExecutable(name: string, searchPath: string | undefined): string | undefined {
  if (name.includes('/')) return isAbsolute(name) && isExecutableFile(name) ? name : undefined;
  for (const directory of (searchPath ?? '').split(delimiter)) {
    if (!isAbsolute(directory)) continue;
    const candidate = join(directory, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
