// `npm start` builds first when dist/ is missing or older than the sources: the tsc output (what the tests and
// the bench's helpers run) and the bundle (dist/bundle/cli.js: what `npm start` runs, see scripts/bundle.mjs).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markTscBuilt, staleBuilds } from './stale-builds.mjs';

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

// the same rule as the tests' global set-up (scripts/stale-builds.mjs)
const stale = staleBuilds(root);
if (stale.tsc) {
  process.stderr.write('building (tsc)…\n');
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
  markTscBuilt(root);
}
if (stale.bundle) {
  process.stderr.write('bundling (esbuild)…\n');
  const { bundle } = await import('./bundle.mjs');
  await bundle();
}
