import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * End-to-end tests drive the built service (`node dist/src/cli.js start`), exactly as `npm start` runs it.
 * Type errors do not stop the build here (tsc still emits); `npm test` type-checks strictly before vitest.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
    encoding: 'utf8',
  });
  if (result.status !== 0) process.stderr.write(`tsc reported errors (the build was emitted anyway):\n${result.stdout}\n`);
}
