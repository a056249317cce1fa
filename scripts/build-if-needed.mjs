// `npm start` builds first when dist/ is missing or older than the sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const output = join(root, 'dist/src/cli.js');

function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const sources = ['src', 'channels', 'bench', 'soak', 'test'].map((folder) => join(root, folder)).filter(existsSync);
const stale = !existsSync(output) || Math.max(...sources.map(newestSource)) > statSync(output).mtimeMs;
if (stale) {
  process.stderr.write('building (tsc)…\n');
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
}
