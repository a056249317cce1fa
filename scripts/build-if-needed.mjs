// `npm start` builds first when dist/ is missing or older than the sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

// an unsupported Node is refused here too, before a build it may not manage (the service's entry checks again)
const minimum = Number(/\d+/.exec(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node)[0]);
if (Number(process.versions.node.split('.')[0]) < minimum) {
  process.stderr.write(
    `chatbot-service needs Node.js ${minimum} or later, and this is Node.js ${process.versions.node} (${process.execPath}): ` +
      'install Node.js 24 LTS (https://nodejs.org/en/download, or `nvm install 24`, or `fnm install 24`) and run it with that node\n',
  );
  process.exit(1);
}
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
